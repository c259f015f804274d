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

// A server answers a browser's permessage-deflate offer (RFC 7692): it
// asks for no context takeover either way, so that a connection keeps no
// compression state between messages.
func ExampleAcceptDeflate() {
	offer := "permessage-deflate; client_max_window_bits"
	pref := ws.Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}
	agreed, ok := ws.AcceptDeflate(offer, pref)
	fmt.Println(ok)
	fmt.Printf("Sec-WebSocket-Extensions: %s\n", ws.AppendDeflate(nil, agreed, false))
	// Output:
	// true
	// Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover
}

// A server compresses the messages it sends of at least 64 bytes; the
// client reads them back inflated. The short one goes uncompressed.
func ExampleCompressor() {
	agreed := ws.Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}
	var c ws.Compressor
	c.Reset(agreed, ws.Server, 64, false)
	defer c.Release()
	long := bytes.Repeat([]byte(`{"address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"},`), 20)
	var out []byte
	out = c.AppendMessage(out, ws.OpText, long, ws.Mask{})
	fmt.Println(len(long), "bytes sent in fewer than", len(long)/10, len(out) < len(long)/10)
	out = c.AppendMessage(out, ws.OpText, []byte(`{"id":1}`), ws.Mask{})

	var rd ws.Reader
	rd.Reset(bytes.NewReader(out), ws.Client, 0)
	rd.SetDeflate(agreed)
	for {
		_, p, err := rd.Next()
		if err != nil {
			break
		}
		fmt.Println("read", len(p), "bytes")
	}
	// Output:
	// 1140 bytes sent in fewer than 114 true
	// read 1140 bytes
	// read 8 bytes
}
