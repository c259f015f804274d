package gateway_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestSubscriptionRelay: ns_subscribe through the gateway is answered
// before its notifications, which come in order; when the upstream goes
// away, the subscription ends with the documented error notification and
// the client's connection stays up. Subscription calls inside a batch are
// refused with an error.
func TestSubscriptionRelay(t *testing.T) {
	u := newUpstream(t, "a")
	if err := u.e.RegisterMethod(dispatch.Method{Name: "ns_subscribe", CallsPeer: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			p := dispatch.PeerOf(ctx)
			if err := p.Reply(ctx, []byte(`"0x1"`)); err != nil {
				return nil, err
			}
			for i := range 3 {
				p.NotifyRaw(ctx, "ns_subscription", []byte(`{"subscription":"0x1","result":`+itoa(i)+`}`))
			}
			return nil, nil
		})}); err != nil {
		// The engine froze at its first message; newUpstream sent none.
		t.Fatal(err)
	}
	relay := gateway.NewRelay("tcp://" + u.addr)
	c, err := client.Dial(context.Background(), "tcp", u.addr, &client.Options{Handler: relay,
		Reconnect: &client.Reconnect{MinDelay: 10 * time.Millisecond, OnState: relay.State}})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	gw := newGateway(t, &gateway.Options{Default: &gateway.Group{Name: "a", Pool: pool, Relays: []*gateway.Relay{relay}}})
	s := netserver.New(engine(t, gw), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	expect := func(want string) {
		t.Helper()
		line, err := r.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != want {
			t.Fatalf("got %q (%v)\nwant %s", line, err, want)
		}
	}
	conn.Write([]byte(`{"jsonrpc":"2.0","id":"s","method":"ns_subscribe","params":["x"]}` + "\n"))
	expect(`{"jsonrpc":"2.0","id":"s","result":"0x1"}`)
	for i := range 3 {
		expect(`{"jsonrpc":"2.0","method":"ns_subscription","params":{"subscription":"0x1","result":` + itoa(i) + `}}`)
	}
	// Inside a batch, subscription calls are refused with a clear error
	// (and not sent upstream: no notification follows); the others are
	// answered.
	conn.Write([]byte(`[{"jsonrpc":"2.0","id":"b1","method":"ns_subscribe","params":["x"]},{"jsonrpc":"2.0","id":"b2","method":"count"},` +
		`{"jsonrpc":"2.0","id":"b3","method":"ns_unsubscribe","params":["0x1"]}]` + "\n"))
	refused := `"error":{"code":-32000,"message":"Subscriptions are not supported in batches: send the call alone"}}`
	expect(`[{"jsonrpc":"2.0","id":"b1",` + refused + `,{"jsonrpc":"2.0","id":"b2","result":"a"},{"jsonrpc":"2.0","id":"b3",` + refused + `]`)
	u.stop()
	expect(`{"jsonrpc":"2.0","method":"ns_subscription","params":{"subscription":"0x1","error":{"code":-32000,"message":"Upstream gone","data":"tcp://` + u.addr + `"}}}`)
	conn.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"count"}` + "\n"))
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Upstream unavailable"`) {
		t.Fatalf("a call after the upstream went: %q %v", line, err)
	}
}
