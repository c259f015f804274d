package netserver

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
)

// connRecorder counts connection events.
type connRecorder struct {
	mu sync.Mutex
	n  map[[2]uint8]int
}

func (r *connRecorder) ObserveConn(t Transport, ev ConnEvent) {
	r.mu.Lock()
	if r.n == nil {
		r.n = map[[2]uint8]int{}
	}
	r.n[[2]uint8{uint8(t), uint8(ev)}]++
	r.mu.Unlock()
}

func (r *connRecorder) count(t Transport, ev ConnEvent) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[[2]uint8{uint8(t), uint8(ev)}]
}

// TestObserveMaxConns: a connection over MaxConns is reported, never opened.
func TestObserveMaxConns(t *testing.T) {
	rec := &connRecorder{}
	ts := startServer(t, &Options{MaxConns: 1, Observer: rec})
	c := ts.dial(t, frame.NDJSON)
	c.call(`{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}`)
	c2 := ts.dial(t, frame.NDJSON)
	c2.expectClosed()
	c.nc.Close()
	waitFor(t, "the connection to close", func() bool { return rec.count(TCP, ConnClosed) == 1 })
	if o, m := rec.count(TCP, ConnOpened), rec.count(TCP, ConnMaxConns); o != 1 || m != 1 {
		t.Errorf("opened %d, max_conns %d; want 1 and 1", o, m)
	}
}

// TestObserveWriteTimeout: a client that never reads is dropped after
// WriteTimeout, and that is reported.
func TestObserveWriteTimeout(t *testing.T) {
	rec := &connRecorder{}
	checkGoroutines(t)
	ts := serveOn(t, newServer(t, &Options{MaxPending: 64 << 10, WriteTimeout: 100 * time.Millisecond, Observer: rec}))
	c := ts.dial(t, frame.NDJSON)
	msg := frame.AppendFrame(nil, frame.NDJSON,
		[]byte(`{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("y", 1000)+`"],"id":1}`))
	c.nc.SetWriteDeadline(time.Now().Add(testTimeout))
	for range (256 << 20) / len(msg) {
		if _, err := c.nc.Write(msg); err != nil {
			break
		}
	}
	waitFor(t, "the connection to be dropped", func() bool { return rec.count(TCP, ConnClosed) == 1 })
	if n := rec.count(TCP, ConnWriteTimeout); n != 1 {
		t.Errorf("write timeouts %d, want 1", n)
	}
}

// TestOrigin: a connection's handlers see its origin: the transport and
// the client's address.
func TestOrigin(t *testing.T) {
	origin := withMethod(dispatch.Method{Name: "origin", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			o := dispatch.OriginOf(ctx)
			if o == nil {
				return encode.AppendString(dst, "none"), nil
			}
			remote := ""
			if o.Remote != nil {
				remote = o.Remote.String()
			}
			return encode.AppendString(dst, o.Transport+" "+remote+" "+string(o.TraceParent)), nil
		})})
	ts := startServer(t, nil, origin)
	c := ts.dial(t, frame.NDJSON)
	expectResult(t, c.call(`{"jsonrpc":"2.0","method":"origin","id":1}`), "1",
		`"tcp `+c.nc.LocalAddr().String()+` "`)

	_, sc := startStdio(t, nil, frame.NDJSON, origin)
	expectResult(t, sc.call(`{"jsonrpc":"2.0","method":"origin","id":2}`), "2", `"stdio  "`)
}
