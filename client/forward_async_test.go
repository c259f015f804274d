package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// TestForwardCancel: Cancel ends a forward in flight with
// context.Canceled; a Cancel with the token of an ended use does nothing
// to the next use of the pooled Forward; HTTP endpoints take no Forward.
func TestForwardCancel(t *testing.T) {
	addr, httpURL, stop := serveDemo()
	defer stop()
	c, err := client.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	type result struct {
		res string
		err error
	}
	done := make(chan result, 1)
	var cb completion = func(res []byte, err error) { done <- result{string(res), err} }

	f := p.NewForward("sleep", cb)
	token := f.Token()
	f.Start(nil, []byte(`[5000]`), 0)
	f.Cancel(token)
	if r := <-done; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled: %q %v", r.res, r.err)
	}
	old := f
	for range 50 { // old's next uses, often (it is pooled): its old token must not touch them
		f := p.NewForward("sleep", cb)
		f.Start(nil, []byte(`[1]`), time.Second)
		old.Cancel(token)
		if r := <-done; r.err != nil || r.res != "1" {
			t.Fatalf("a late Cancel ended the next use: %q %v", r.res, r.err)
		}
	}

	hc, err := client.DialHTTP(httpURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	hp, err := client.NewPool([]*client.Client{hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hp.Close()
	if hp.NewForward("sleep", cb) != nil {
		t.Error("an HTTP pool took a Forward")
	}
}

type completion func(res []byte, err error)

func (f completion) ForwardDone(res []byte, err error, _ *client.Later) { f(res, err) }
