package netserver_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// ExampleServer_ServeStdio serves two calls and a notification read from a
// stream, as an LSP or MCP server reads os.Stdin, and writes the responses.
func ExampleServer_ServeStdio() {
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	s := netserver.New(e, nil)
	defer s.Shutdown(context.Background())

	in := strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}` + "\n" +
		`{"jsonrpc":"2.0","method":"update","params":[1]}` + "\n" +
		`{"jsonrpc":"2.0","method":"get_data","id":"b"}` + "\n")
	var out bytes.Buffer
	if err := s.ServeStdio(in, &out); err != nil { // returns at EOF
		fmt.Println(err)
	}
	fmt.Print(out.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":19}
	// {"jsonrpc":"2.0","id":"b","result":["hello",5]}
}
