package frame_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jetrpc/jetrpc/frame"
)

func ExampleReader() {
	in := "{\"id\":1}\r\n\n" + strings.Repeat("x", 100) + "\n[2]"
	r := frame.NewReader(strings.NewReader(in), frame.Auto, 64)
	for {
		msg, err := r.Next()
		var tl *frame.TooLargeError
		switch {
		case err == io.EOF:
			fmt.Println("framing:", r.Kind())
			return
		case errors.As(err, &tl):
			fmt.Println("skipped a message over", tl.Limit, "bytes")
			continue
		case err != nil:
			fmt.Println(err)
			return
		}
		fmt.Printf("%s\n", msg)
	}
	// Output:
	// {"id":1}
	// skipped a message over 64 bytes
	// [2]
	// framing: ndjson
}

func ExampleAppendFrame() {
	msg := []byte(`{"jsonrpc":"2.0","result":19,"id":1}`)
	fmt.Printf("%q\n", frame.AppendFrame(nil, frame.Header, msg))
	fmt.Printf("%q\n", frame.AppendFrame(nil, frame.Len32, []byte("{}")))

	// Encode straight into the frame.
	dst, mark := frame.BeginFrame(nil, frame.Header)
	dst = append(dst, `{"jsonrpc":"2.0","result":null,"id":2}`...)
	dst = frame.EndFrame(dst, frame.Header, mark)
	fmt.Printf("%q\n", dst)
	// Output:
	// "Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":19,\"id\":1}"
	// "\x00\x00\x00\x02{}"
	// "Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":2}"
}
