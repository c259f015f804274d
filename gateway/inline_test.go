package gateway_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/gateway/cache"
)

// inlineFixture is a gateway with a Memory cache for eth_chainId and echo
// in front of one upstream, and a way to call ForwardInline.
func inlineFixture(t *testing.T, store cache.Store) (*gateway.Gateway, *upstream, func(dst []byte, msg []byte) ([]byte, bool)) {
	u := newUpstream(t, "a")
	gw := newGateway(t, &gateway.Options{Default: group(t, "a", nil, u), Cache: store,
		CachePolicy: methodPolicy{"eth_chainId": time.Minute, "echo": time.Minute, "fail": time.Minute}})
	var p decode.Parser
	return gw, u, func(dst []byte, msg []byte) ([]byte, bool) {
		if _, err := p.Parse(msg); err != nil {
			t.Fatal(err)
		}
		return gw.ForwardInline(context.Background(), dst, &p)
	}
}

// TestForwardInline: a call the Memory cache holds is answered at once
// with the caller's id; a miss, an uncacheable method, a notification, a
// batch with a miss or a notification and a store that is no cache.Peeker
// are left to Forward.
func TestForwardInline(t *testing.T) {
	gw, u, inline := inlineFixture(t, cache.NewMemory(nil))
	e := engine(t, gw)
	prefix := []byte("x")
	if out, ok := inline(prefix, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`)); ok || string(out) != "x" {
		t.Fatalf("a miss: %s %v", out, ok)
	}
	if got := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`))); got != `{"jsonrpc":"2.0","id":1,"result":"a"}` {
		t.Fatalf("forwarded: %s", got)
	}
	for _, id := range []string{`9007199254740993`, `"a\u0041"`, `null`} {
		out, ok := inline(prefix, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"eth_chainId","params":[5]}`))
		if want := `x{"jsonrpc":"2.0","id":` + id + `,"result":"a"}`; !ok || string(out) != want {
			t.Fatalf("a hit: %s %v, want %s", out, ok, want)
		}
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[6]}`, // other params
		`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[5]}`,
		`{"jsonrpc":"2.0","method":"eth_chainId","params":[5]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]},{"jsonrpc":"2.0","id":2,"method":"eth_chainId","params":[6]}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]},{"jsonrpc":"2.0","method":"eth_chainId","params":[5]}]`,
	} {
		if out, ok := inline(prefix, []byte(msg)); ok || string(out) != "x" {
			t.Errorf("%s: %s %v, want it left to Forward", msg, out, ok)
		}
	}
	if n := u.count("eth_chainId"); n != 1 {
		t.Errorf("eth_chainId reached the upstream %d times, want 1", n)
	}
	if hits := gw.Stats().Routes[0].CacheHits; hits != 3 {
		t.Errorf("%d cache hits counted, want 3", hits)
	}

	// A store that may wait (not a cache.Peeker): never inline.
	gw2, _, inline2 := inlineFixture(t, newMemStore())
	engine(t, gw2).Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`))
	if out, ok := inline2(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]}`)); ok {
		t.Errorf("a store that is no Peeker answered inline: %s", out)
	}
}

// TestForwardInlineBatch: a batch whose members are all cache hits is
// answered inline, as Forward answers it (ids byte for byte, a member over
// its route's rate with its own error), and over TCP while the engine's
// only worker is held.
func TestForwardInlineBatch(t *testing.T) {
	gw, u, inline := inlineFixture(t, cache.NewMemory(nil))
	e := engine(t, gw)
	e.Process(nil, []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[5]},{"jsonrpc":"2.0","id":2,"method":"echo","params":[7]}]`))
	batch := `[{"jsonrpc":"2.0","id":"a\u0041","method":"echo","params":[7]},{"jsonrpc":"2.0","id":9007199254740993,"method":"eth_chainId","params":[5]}]`
	want := `[{"jsonrpc":"2.0","id":"a\u0041","result":[7]},{"jsonrpc":"2.0","id":9007199254740993,"result":"a"}]`
	if out, ok := inline([]byte("x"), []byte(batch)); !ok || string(out) != "x"+want {
		t.Fatalf("all hits: %s %v, want x%s", out, ok, want)
	}
	if got := string(e.Process(nil, []byte(batch))); got != want {
		t.Errorf("Process: %s, want %s", got, want)
	}
	if n := u.count("eth_chainId"); n != 1 {
		t.Errorf("eth_chainId reached the upstream %d times, want 1 (the first batch)", n)
	}

	// Over TCP, with the only worker held by a batch of sleep.
	e1 := dispatch.New(&dispatch.Options{Forward: gw, MaxWorkers: 1})
	t.Cleanup(e1.Close)
	_, addr := serveTCP(t, e1)
	holder, c := dialTCP(t, addr), dialTCP(t, addr)
	held := make(chan error, 1)
	go func() {
		b := holder.NewBatch()
		x := b.CallRaw("sleep", []byte(`[1000]`))
		err := b.Send(context.Background())
		if err == nil {
			err = x.Err()
		}
		held <- err
	}()
	time.Sleep(100 * time.Millisecond) // the holding batch is on the worker
	// A batch that needs a worker is refused meanwhile: the worker is held.
	waitFor(t, func() bool {
		b := c.NewBatch()
		x := b.CallRaw("subtract", []byte(`[2,1]`))
		var re *encode.Error
		return b.Send(context.Background()) == nil && errors.As(x.Err(), &re) && re.Code == encode.CodeOverloaded
	})
	for range 10 {
		b := c.NewBatch()
		x, y := b.CallRaw("echo", []byte(`[7]`)), b.CallRaw("eth_chainId", []byte(`[5]`))
		if err := b.Send(context.Background()); err != nil || x.Err() != nil || y.Err() != nil ||
			string(x.Raw()) != "[7]" || string(y.Raw()) != `"a"` {
			t.Fatalf("a batch of hits while the worker is held: %v %v %v %s %s", err, x.Err(), y.Err(), x.Raw(), y.Raw())
		}
	}
	if err := <-held; err != nil {
		t.Errorf("the holding batch: %v", err)
	}
}
