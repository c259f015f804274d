package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// fakeConn is a connection whose outbound messages are recorded; answers
// to the peer's calls are fed back through the engine, as a server does.
type fakeConn struct {
	mu   sync.Mutex
	sent []string
	got  chan string // every message sent, as well
	err  error       // send fails with it when set
}

func newFakeConn() *fakeConn { return &fakeConn{got: make(chan string, 1024)} }

func (f *fakeConn) send(_ context.Context, msg []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.sent = append(f.sent, string(msg))
	f.got <- string(msg)
	return nil
}

func (f *fakeConn) next(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	select {
	case s := <-f.got:
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("sent %q: not a JSON object: %v", s, err)
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("nothing sent to the peer")
		return nil
	}
}

func TestPeerNotify(t *testing.T) {
	fc := newFakeConn()
	p := peerOf(newConn(newDemo(t, nil), fc.send, false))
	ctx := context.Background()
	if err := p.NotifyRaw(ctx, "progress", []byte(`{"done":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Notify(ctx, "bare", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Notify(ctx, "typed", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"progress","params":{"done":1}}`,
		`{"jsonrpc":"2.0","method":"bare"}`,
		`{"jsonrpc":"2.0","method":"typed","params":[1,2]}`,
	}
	if strings.Join(fc.sent, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(fc.sent, "\n"), strings.Join(want, "\n"))
	}
	if err := p.Notify(ctx, "scalar", 5); !errors.Is(err, dispatch.ErrPeerParams) {
		t.Errorf("scalar params: %v, want ErrPeerParams", err)
	}
	if err := p.NotifyRaw(ctx, "scalar", []byte(`"x"`)); !errors.Is(err, dispatch.ErrPeerParams) {
		t.Errorf("scalar raw params: %v, want ErrPeerParams", err)
	}
	fc.err = errors.New("broken pipe")
	if err := p.Notify(ctx, "late", nil); err != fc.err {
		t.Errorf("send error: %v, want the transport's", err)
	}
}

func TestPeerWithout(t *testing.T) {
	var p *dispatch.Peer // what PeerOf returns without a transport
	ctx := context.Background()
	if dispatch.PeerOf(ctx) != nil {
		t.Fatal("PeerOf(Background) != nil")
	}
	if err := p.Notify(ctx, "x", nil); !errors.Is(err, dispatch.ErrNoPeer) {
		t.Errorf("nil Notify: %v", err)
	}
	if _, err := p.CallRaw(ctx, nil, "x", nil); !errors.Is(err, dispatch.ErrNoPeer) || p.CanCall() {
		t.Errorf("nil CallRaw: %v", err)
	}
	e := newDemo(t, nil, dispatch.Method{Name: "inline_call", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			_, err := dispatch.PeerOf(ctx).CallRaw(ctx, nil, "x", nil)
			return append(dst, strconv.Quote(err.Error())...), nil
		})})
	if dispatch.PeerOf(newConn(e, nil, false).Context()) != nil {
		t.Error("a Conn without send has a peer")
	}
	one := peerOf(newConn(e, newFakeConn().send, true))
	if _, err := one.CallRaw(ctx, nil, "x", nil); !errors.Is(err, dispatch.ErrOneWay) || one.CanCall() {
		t.Errorf("one-way CallRaw: %v", err)
	}
	// On the reading goroutine (Try, an Inline method) a call to
	// the peer would wait for an answer that goroutine must read.
	conn := newConn(e, newFakeConn().send, false)
	out, route := try(conn, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"inline_call"}`))
	if want := `{"jsonrpc":"2.0","id":1,"result":` + strconv.Quote(dispatch.ErrOnReader.Error()) + `}`; route != engineconn.RouteInline || string(out) != want {
		t.Errorf("CallRaw on the reader: %s (route %d), want %s", out, route, want)
	}
}

// TestPeerCall: a handler calls its peer; the answer comes back through the
// engine (Process under the connection's context), in any order.
func TestPeerCall(t *testing.T) {
	fc := newFakeConn()
	e := newDemo(t, nil, dispatch.Method{Name: "ask", Handler: dispatch.Typed(
		func(ctx context.Context, args []int) (int, error) {
			var sum int
			err := dispatch.PeerOf(ctx).Call(ctx, "client.add", args, &sum)
			return sum, err
		})})
	conn := newConn(e, fc.send, false)
	type answer struct{ out []byte }
	results := make(chan answer, 3)
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ask","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":2,"method":"ask","params":[3,4]}`,
		`{"jsonrpc":"2.0","id":3,"method":"ask","params":[5,6]}`,
	} {
		go func() { results <- answer{conn.Process(nil, []byte(req))} }()
	}
	var calls []map[string]json.RawMessage
	for range 3 {
		calls = append(calls, fc.next(t))
	}
	// Answer in reverse order: the first with an error, the others with sums.
	for i := len(calls) - 1; i >= 0; i-- {
		c := calls[i]
		if string(c["method"]) != `"client.add"` {
			t.Fatalf("peer got %v", c)
		}
		var args []int
		json.Unmarshal(c["params"], &args)
		r := `{"jsonrpc":"2.0","id":` + string(c["id"]) + `,"result":` + itoa(args[0]+args[1]) + `}`
		if args[0] == 1 {
			r = `{"jsonrpc":"2.0","id":` + string(c["id"]) + `,"error":{"code":-1,"message":"no","data":[7]}}`
		}
		if out := conn.Process(nil, []byte(r)); len(out) != 0 {
			t.Fatalf("a response produced %s", out)
		}
	}
	got := map[string]string{}
	for range 3 {
		a := <-results
		r := parseOne(t, a.out)
		if r.Error != nil {
			got[string(r.ID)] = itoa(r.Error.Code) + " " + r.Error.Message + " " + string(r.Error.Data)
		} else {
			got[string(r.ID)] = string(r.Result)
		}
	}
	want := map[string]string{"1": "-1 no [7]", "2": "7", "3": "11"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("call %s: %q, want %q", id, got[id], w)
		}
	}
	// A response nobody waits for is dropped and counted.
	before := e.Dropped()
	conn.Process(nil, []byte(`{"jsonrpc":"2.0","id":99,"result":1}`))
	if e.Dropped() != before+1 {
		t.Errorf("Dropped %d, want %d", e.Dropped(), before+1)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestPeerCallEnds(t *testing.T) {
	fc := newFakeConn()
	e := newDemo(t, nil)
	conn := newConn(e, fc.send, false)
	p := peerOf(conn)
	// ctx ends: the call is forgotten, its late answer dropped.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.CallRaw(ctx, nil, "slow", nil)
		done <- err
	}()
	c := fc.next(t)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	before := e.Dropped()
	conn.Process(nil, []byte(`{"jsonrpc":"2.0","id":`+string(c["id"])+`,"result":1}`))
	if e.Dropped() != before+1 {
		t.Error("the answer to a forgotten call was not dropped")
	}
	// The connection closes: pending calls fail, and so do later ones.
	go func() {
		_, err := p.CallRaw(context.Background(), nil, "never", []byte(`[1]`))
		done <- err
	}()
	fc.next(t)
	p.Close()
	if err := <-done; !errors.Is(err, dispatch.ErrPeerClosed) {
		t.Errorf("pending at Close: %v", err)
	}
	if _, err := p.CallRaw(context.Background(), nil, "after", nil); !errors.Is(err, dispatch.ErrPeerClosed) {
		t.Errorf("after Close: %v", err)
	}
	// A send that fails leaves nothing pending.
	fc2 := newFakeConn()
	fc2.err = errors.New("gone")
	p2 := peerOf(newConn(e, fc2.send, false))
	if _, err := p2.CallRaw(context.Background(), nil, "x", nil); err != fc2.err {
		t.Errorf("send failure: %v", err)
	}
}

// TestProcessStream: each response is emitted on its own as soon as it is
// ready; a blocking member does not hold back the others.
func TestProcessStream(t *testing.T) {
	release := make(chan struct{})
	e := newDemo(t, nil, dispatch.Method{Name: "wait", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			<-release
			return append(dst, `"waited"`...), nil
		})})
	var mu sync.Mutex
	var got []string
	emitted := make(chan struct{}, 16)
	emit := func(resp []byte) {
		mu.Lock()
		got = append(got, string(resp))
		mu.Unlock()
		emitted <- struct{}{}
	}
	done := make(chan struct{})
	go func() {
		e.ProcessStream(context.Background(), []byte(`[
			{"jsonrpc":"2.0","id":1,"method":"wait"},
			{"jsonrpc":"2.0","id":2,"method":"subtract","params":[5,3]},
			{"jsonrpc":"2.0","method":"update"},
			{"jsonrpc":"2.0","id":3,"method":"nope"},
			{"jsonrpc":"2.0","id":4,"method":"wait"},
			1]`), emit)
		close(done)
	}()
	for range 3 { // subtract, nope and the invalid member, while "wait" blocks
		<-emitted
	}
	mu.Lock()
	early := append([]string(nil), got...)
	mu.Unlock()
	close(release)
	<-done
	want := []string{
		`{"jsonrpc":"2.0","id":2,"result":2}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`,
	}
	for i, w := range want {
		if early[i] != w {
			t.Errorf("event %d: %s, want %s", i, early[i], w)
		}
	}
	if !strings.Contains(early[2], `"code":-32600`) {
		t.Errorf("event 2: %s, want an Invalid Request", early[2])
	}
	if len(got) != 5 || !strings.Contains(got[3]+got[4], `"id":1,"result":"waited"`) ||
		!strings.Contains(got[3]+got[4], `"id":4,"result":"waited"`) {
		t.Errorf("all events: %q", got)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"subtract","params":[1,1]}`, `{"jsonrpc":"2.0","id":7,"result":0}`},
		{`{"jsonrpc":"2.0","method":"update"}`, ``},
		{`[{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"wait"}]`, ``},
		{`{"jsonrpc"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"invalid JSON at offset 10"}}`},
	} {
		var all []string
		e.ProcessStream(context.Background(), []byte(tc.in), func(b []byte) { all = append(all, string(b)) })
		if strings.Join(all, "|") != tc.want {
			t.Errorf("%s: emitted %q, want %q", tc.in, all, tc.want)
		}
	}
}

// TestPeerReply: a handler answers its call early, then notifies; the
// engine adds no response of its own, and Reply refuses where the response
// is not the handler's to send.
func TestPeerReply(t *testing.T) {
	fc := newFakeConn()
	replyErrs := make(chan error, 8)
	e := newDemo(t, nil, dispatch.Method{Name: "sub", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			peer := dispatch.PeerOf(ctx)
			err := peer.Reply(ctx, []byte(`"0xa"`))
			replyErrs <- err
			if err != nil {
				return append(dst, `"late"`...), nil
			}
			replyErrs <- peer.Reply(ctx, []byte(`1`)) // a second time
			if err := peer.NotifyRaw(ctx, "tick", []byte(`[1]`)); err != nil {
				return dst, err
			}
			return dst, errors.New("ignored: the call was answered")
		})})
	conn := newConn(e, fc.send, false)
	if out := conn.Process(nil, []byte(`{"jsonrpc":"2.0","id":5,"method":"sub"}`)); len(out) != 0 {
		t.Fatalf("the engine answered %s after Reply", out)
	}
	want := `{"jsonrpc":"2.0","id":5,"result":"0xa"}|{"jsonrpc":"2.0","method":"tick","params":[1]}`
	if got := strings.Join(fc.sent, "|"); got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
	if err := <-replyErrs; err != nil {
		t.Errorf("Reply: %v", err)
	}
	if err := <-replyErrs; !errors.Is(err, dispatch.ErrNoReply) {
		t.Errorf("second Reply: %v, want ErrNoReply", err)
	}
	// In a batch the response belongs in the array; a notification has none.
	out := conn.Process(nil, []byte(`[{"jsonrpc":"2.0","id":1,"method":"sub"},{"jsonrpc":"2.0","method":"sub"}]`))
	if string(out) != `[{"jsonrpc":"2.0","id":1,"result":"late"}]` {
		t.Errorf("batch: %s", out)
	}
	for range 2 {
		if err := <-replyErrs; !errors.Is(err, dispatch.ErrNoReply) {
			t.Errorf("Reply in a batch or a notification: %v, want ErrNoReply", err)
		}
	}
	// Without a peer (plain HTTP, Process) there is nobody to reply to.
	if out := e.Process(nil, []byte(`{"jsonrpc":"2.0","id":2,"method":"sub"}`)); string(out) != `{"jsonrpc":"2.0","id":2,"result":"late"}` {
		t.Errorf("without a peer: %s", out)
	}
	if err := <-replyErrs; !errors.Is(err, dispatch.ErrNoPeer) {
		t.Errorf("Reply without a peer: %v, want ErrNoPeer", err)
	}
}

// TestConnRoutes: a transport's view of the engine, one conn per
// connection. Cheap messages are answered by Try on the reading
// goroutine; a message routed elsewhere runs with Run (a server runs it
// on a worker, after Routed.Keep). The handler's notification reaches the
// client through the conn's send.
func TestConnRoutes(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.RegisterMethod(dispatch.Method{Name: "add", Inline: true, Handler: dispatch.Typed(
		func(_ context.Context, p [2]int) (int, error) { return p[0] + p[1], nil })})
	_ = e.Register("slow_hello", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		err := dispatch.PeerOf(ctx).NotifyRaw(ctx, "hello", []byte(`["world"]`))
		return append(dst, "true"...), err
	}))
	var sent []string
	conn := newConn(e, func(_ context.Context, msg []byte) error {
		sent = append(sent, string(msg))
		return nil
	}, false)
	defer conn.Close()
	f := func(msg string, wantRoute engineconn.Route, want string) {
		t.Helper()
		out, r := conn.Try(nil, []byte(msg))
		route := engineconn.RouteInline
		if r != nil {
			if len(out) != 0 {
				t.Errorf("%s: routed with %q appended", msg, out)
			}
			route = r.Route()
			done := make(chan []byte)
			go func() { done <- conn.Run(nil, r) }()
			out = <-done
		}
		if route != wantRoute || string(out) != want {
			t.Errorf("%s: route %d, %s; want route %d, %s", msg, route, out, wantRoute, want)
		}
	}
	f(`{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}`, engineconn.RouteInline, `{"jsonrpc":"2.0","id":1,"result":5}`)
	f(`{"jsonrpc":"2.0","id":2,"method":"slow_hello"}`, engineconn.RouteWorker, `{"jsonrpc":"2.0","id":2,"result":true}`)
	if want := `{"jsonrpc":"2.0","method":"hello","params":["world"]}`; len(sent) != 1 || sent[0] != want {
		t.Errorf("sent to the client: %q, want %q", sent, want)
	}
}
