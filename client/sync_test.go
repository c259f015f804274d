package client_test

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
)

// Sync after a call waits for the Handler to finish the notifications the
// server sent before the call's answer (ACP's updates before a prompt's
// answer), although the answer completes the call as soon as it is read.
// From the Handler itself Sync does not wait.
func TestSync(t *testing.T) {
	const n = 300
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		id := requestID(t, readLine(t, r))
		for i := 1; i <= n; i++ {
			writeLine(t, conn, `{"jsonrpc":"2.0","method":"tick","params":[`+strconv.Itoa(i)+`]}`)
		}
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":true}`)
		writeLine(t, conn, `{"jsonrpc":"2.0","method":"inner","params":[]}`)
		waitClosed(r)
	})
	var seen atomic.Int64
	var c *client.Client
	inner := make(chan error, 1)
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	t.Cleanup(e.Close)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Register("tick", dispatch.Typed(func(_ context.Context, p [1]int) (any, error) {
		time.Sleep(100 * time.Microsecond) // slower than the reader
		seen.Store(int64(p[0]))
		return nil, nil
	})))
	must(e.Register("inner", dispatch.Typed(func(ctx context.Context, _ []int) (any, error) {
		inner <- c.Sync(ctx) // the Handler's own context: no waiting for itself
		return nil, nil
	})))
	c = dialTCP(t, addr, &client.Options{Handler: e})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok bool
	must(c.Call(ctx, "go", nil, &ok))
	must(c.Sync(ctx))
	if got := seen.Load(); got != n {
		t.Fatalf("after Sync the handler has seen %d ticks, want %d", got, n)
	}
	select {
	case err := <-inner:
		must(err)
	case <-ctx.Done():
		t.Fatal("Sync from the handler waited")
	}
	// nothing queued: Sync returns at once
	must(c.Sync(ctx))
}
