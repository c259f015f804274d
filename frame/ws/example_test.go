package ws_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// A server reads a client's frames: "Hello", masked (RFC 6455 section 5.7),
// a ping, "café" in two fragments cut inside the é, and a text message
// that is not UTF-8, which ends the connection with close 1007.
func ExampleReader() {
	stream := []byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}
	m := ws.MaskWith(0x01020304)
	stream = ws.AppendFrame(stream, ws.OpPing, nil, m)
	stream = ws.AppendHeader(stream, ws.OpText, false, 4, m)
	start := len(stream)
	stream = append(stream, "caf\xc3"...)
	m.Apply(stream[start:])
	stream = ws.AppendHeader(stream, ws.OpContinuation, true, 1, m)
	stream = append(stream, 0xa9)
	m.Apply(stream[len(stream)-1:])
	stream = ws.AppendFrame(stream, ws.OpText, []byte("bad \xed\xa0\x80"), m)

	var rd ws.Reader
	rd.Reset(bytes.NewReader(stream), ws.Server, 0)
	for {
		op, p, err := rd.Next()
		var bad *ws.UTF8Error
		switch {
		case errors.As(err, &bad):
			fmt.Println("close", ws.CloseInvalidData, "at offset", bad.Offset)
			return
		case err != nil:
			fmt.Println(err)
			return
		case op == ws.OpText:
			fmt.Printf("text %q\n", p)
		case op == ws.OpPing:
			fmt.Println("ping")
		}
	}
	// Output:
	// text "Hello"
	// ping
	// text "café"
	// close 1007 at offset 4
}
