package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
)

// recorder is the client side's engine for what the server sends: it keeps
// the "subscription" notifications in arrival order and serves
// client.double and client.fail.
type recorder struct {
	mu   sync.Mutex
	seen []int
}

func newClientEngine(t testing.TB) (*dispatch.Engine, *recorder) {
	t.Helper()
	rec := &recorder{}
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	t.Cleanup(e.Close)
	type sub struct {
		Subscription json.RawMessage `json:"subscription"`
		Result       int             `json:"result"`
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Register("subscription", dispatch.Typed(func(_ context.Context, s sub) (any, error) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, s.Result)
		rec.mu.Unlock()
		return nil, nil
	})))
	must(e.Register("client.double", dispatch.Typed(func(_ context.Context, n int) (int, error) {
		return 2 * n, nil
	})))
	must(e.Register("client.fail", dispatch.HandlerFunc(func(context.Context, []byte, []byte) ([]byte, error) {
		return nil, dispatch.NewError(-5, "nope", []byte(`{"why":1}`))
	})))
	return e, rec
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

// checkServerToClient runs the demo methods that talk back (subscribe,
// callback) through c, whose Handler is rec's engine.
func checkServerToClient(t *testing.T, c *client.Client, rec *recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var n int
	if err := c.Call(ctx, "subscribe", []int{50}, &n); err != nil || n != 50 {
		t.Fatalf("subscribe: %d, %v", n, err)
	}
	deadline := time.Now().Add(testTimeout)
	for rec.count() < 50 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	rec.mu.Lock()
	for i, v := range rec.seen {
		if v != i+1 {
			t.Errorf("notification %d carried %d: out of order", i+1, v)
			break
		}
	}
	if len(rec.seen) != 50 {
		t.Errorf("handler got %d notifications, want 50", len(rec.seen))
	}
	rec.mu.Unlock()

	// Many server-to-client calls at once, each answered by the client's
	// handler and matched by id on the server.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			var got int
			err := c.Call(ctx, "callback", []any{"client.double", []int{i}}, &got)
			if err != nil || got != 2*i {
				t.Errorf("callback double(%d): %d, %v", i, got, err)
			}
		})
	}
	wg.Wait()

	err := c.Call(ctx, "callback", []any{"client.fail"}, nil)
	var re *encode.Error
	if !errors.As(err, &re) || re.Code != -5 || re.Message != "nope" || string(re.Data) != `{"why":1}` {
		t.Errorf("callback fail: %v, want the client's error -5 nope {\"why\":1}", err)
	}
	err = c.Call(ctx, "callback", []any{"client.missing"}, nil)
	if !errors.As(err, &re) || re.Code != encode.CodeMethodNotFound {
		t.Errorf("callback of a method the client lacks: %v, want -32601", err)
	}
}

func TestServerToClientTCP(t *testing.T) {
	checkGoroutines(t)
	s := startTCP(t)
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		t.Run(kind.String(), func(t *testing.T) {
			e, rec := newClientEngine(t)
			c := dialTCP(t, s.addr, &client.Options{Framing: kind, Handler: e})
			checkServerToClient(t, c, rec)
		})
	}
}

func TestServerToClientStdio(t *testing.T) {
	checkGoroutines(t)
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header} {
		t.Run(kind.String(), func(t *testing.T) {
			e, rec := newClientEngine(t)
			c, _ := startStdio(t, kind, &client.Options{Handler: e})
			checkServerToClient(t, c, rec)
		})
	}
}

// TestServerToClientNoHandler: a client without a Handler answers the
// server's calls -32601 and ignores its notifications.
func TestServerToClientNoHandler(t *testing.T) {
	checkGoroutines(t)
	s := startTCP(t)
	c := dialTCP(t, s.addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var n int
	if err := c.Call(ctx, "subscribe", []int{5}, &n); err != nil || n != 5 {
		t.Fatalf("subscribe: %d, %v", n, err)
	}
	err := c.Call(ctx, "callback", []any{"client.double", []int{1}}, nil)
	var re *encode.Error
	if !errors.As(err, &re) || re.Code != encode.CodeMethodNotFound {
		t.Errorf("callback without a handler: %v, want -32601", err)
	}
	if d := c.Dropped(); d != 0 {
		t.Errorf("Dropped %d: the notifications were taken for responses", d)
	}
}

func TestServerToClientWS(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, nil)
	e, rec := newClientEngine(t)
	checkServerToClient(t, dialWS(t, url, &client.Options{Handler: e}), rec)
}
