//go:build !race

package nethttp

import (
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// TestWSDeflateAllocs: a compressed call and its compressed response (the
// client's side here allocates nothing either) cost no allocation once the
// pools are warm, whatever the window.
func TestWSDeflateAllocs(t *testing.T) {
	_, url := startWS(t, nil)
	call := []byte(echoCall("1", strings.Repeat("0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 30)))
	for _, offer := range []string{"permessage-deflate", "permessage-deflate; server_max_window_bits=10"} {
		_, rd, nc, _ := deflateWS(t, url, offer)
		var zip ws.Compressor
		zip.Reset(ws.Deflate{ClientNoContextTakeover: true}, ws.Client, 1024, false)
		m := ws.MaskWith(0x11223344)
		out := make([]byte, 0, 4096)
		run := func() {
			out = zip.AppendMessage(out[:0], ws.OpText, call, m)
			if _, err := nc.Write(out); err != nil {
				t.Fatal(err)
			}
			if _, p, err := rd.Next(); err != nil || len(p) != len(call)-16 {
				t.Fatalf("%d bytes, %v", len(p), err)
			}
		}
		for range 20 {
			run()
		}
		if n := testing.AllocsPerRun(200, run); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", offer, n)
		}
	}
}
