package netserver_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
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

// ExampleServer_Serve serves TCP on a loopback listener and calls it over
// a plain connection, one newline-delimited message at a time (the framing
// is detected from the first byte).
func ExampleServer_Serve() {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	s := netserver.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go s.Serve(ln) // returns ErrServerClosed after Shutdown
	defer s.Shutdown(context.Background())

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	call := func(msg string) {
		if _, err := io.WriteString(c, msg+"\n"); err != nil {
			panic(err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			panic(err)
		}
		fmt.Print(line)
	}
	call(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`)
	call(`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"a"},{"jsonrpc":"2.0","method":"notify_hello"}]`)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":19}
	// [{"jsonrpc":"2.0","id":"a","result":7}]
}
