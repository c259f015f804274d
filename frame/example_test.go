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

// lineCounter is a LineSink that counts a diverted line's bytes.
type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) { c.n += len(p) }
func (c *lineCounter) End(complete bool) {
	fmt.Println("diverted line:", c.n, "bytes, complete:", complete)
}

// A line over the limit goes to a sink instead of being skipped.
func ExampleReader_SetDivert() {
	in := "[1]\n" + strings.Repeat("x", 1000) + "\n[2]\n"
	r := frame.NewReader(strings.NewReader(in), frame.NDJSON, 64)
	r.SetDivert(func(head []byte) frame.LineSink {
		if head[0] != 'x' {
			return nil // skipped as usual: Next reports a *TooLargeError
		}
		return &lineCounter{}
	})
	for {
		msg, err := r.Next()
		if err != nil {
			break
		}
		fmt.Printf("frame %s\n", msg)
	}
	// Output:
	// frame [1]
	// diverted line: 1000 bytes, complete: true
	// frame [2]
}
