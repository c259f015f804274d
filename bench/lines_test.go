package bench_test

import (
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/frame"
)

// TestLineServer checks the baseline servers answer over every framing.
func TestLineServer(t *testing.T) {
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		t.Run(kind.String(), func(t *testing.T) { testLineServer(t, kind, false) })
	}
	t.Run("ndjson-raw", func(t *testing.T) { testLineServer(t, frame.NDJSON, true) })
}

// testLineServer checks one framing, through net.Conn or raw system calls.
func testLineServer(t *testing.T, kind frame.Kind, raw bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &bench.LineServer{Handle: bench.StdlibLine(bench.NewStdlib()), Framing: kind, Raw: raw}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		s.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var out []byte
	out = frame.AppendFrame(out, kind, []byte(`{"jsonrpc":"2.0","method":"update"}`))
	out = frame.AppendFrame(out, kind, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	if _, err := c.Write(out); err != nil {
		t.Fatal(err)
	}
	got, err := frame.NewReader(c, kind, 0).Next()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":19}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
