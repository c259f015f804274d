// Package codestest drives the engine's own conditions (overload, timeout,
// shutdown, rate limit, authentication, authorisation, a batch response
// too large) through one endpoint and checks the code each is answered
// with. The tests of the protocol packages (a2a, mcp, acp) and of plain
// JSON-RPC (netserver) run it on their endpoints, so that every endpoint's
// table in docs/errors.md is checked the same way. Only tests import it.
package codestest

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// Endpoint is one endpoint under test.
type Endpoint struct {
	// New returns the endpoint's engine built with opts (the driver sets
	// the limits it needs in them) and what shuts the endpoint down (a
	// Server's Close). The driver registers its methods on the engine
	// before it serves anything.
	New func(opts *dispatch.Options) (*dispatch.Engine, func())
	// Stream serves e on a stream transport (nil: netserver.New).
	Stream func(e *dispatch.Engine, opts *netserver.Options) *netserver.Server
	// Want are the codes the endpoint must answer the conditions with,
	// every field set.
	Want dispatch.Codes
	// Own are the protocol's own codes, with their meanings: no condition
	// may be answered with one of them unless Same names it.
	Own map[encode.Code]string
	// Same maps a condition (a field name of Codes) to the protocol's own
	// code that means the same thing, where it has one.
	Same map[string]encode.Code
}

// Run drives every condition through ep.
func Run(t *testing.T, ep Endpoint) {
	t.Helper()
	f := func(cond string, want encode.Code, drive func(t *testing.T, ep *Endpoint) int) {
		t.Run(cond, func(t *testing.T) {
			got := encode.Code(drive(t, &ep))
			if got != want {
				t.Fatalf("%s answered %d, want %d", cond, got, want)
			}
			if meaning, ok := ep.Own[got]; ok && ep.Same[cond] != got {
				t.Fatalf("%s answered %d, which means %q in this protocol", cond, got, meaning)
			}
		})
	}
	f("Overloaded", ep.Want.Overloaded, overloaded)
	f("ShuttingDown", ep.Want.ShuttingDown, shuttingDown)
	f("Timeout", ep.Want.Timeout, timeout)
	f("LimitExceeded", ep.Want.LimitExceeded, limitExceeded)
	f("Unauthorized", ep.Want.Unauthorized, unauthorized)
	f("Forbidden", ep.Want.Forbidden, forbidden)
	f("ResponseTooLarge", ep.Want.ResponseTooLarge, tooLarge)
	f("ResponseTooLarge/MaxResponse", ep.Want.ResponseTooLarge, respTooLarge)
}

// The driver's methods.
const (
	mBlock  = "codes.block"  // waits for release (or its context), then returns true
	mPing   = "codes.ping"   // returns true
	mBig    = "codes.big"    // returns a string of 200 bytes
	mSecret = "codes.secret" // no client may call it (forbidden)
)

// methods are the driver's methods on one engine.
type methods struct {
	started chan struct{} // one value per codes.block call that began
	release chan struct{} // closed: codes.block calls return
}

func register(t *testing.T, e *dispatch.Engine) *methods {
	t.Helper()
	m := &methods{started: make(chan struct{}, 8), release: make(chan struct{})}
	big := []byte(`"` + strings.Repeat("x", 200) + `"`)
	for _, r := range []struct {
		name string
		h    dispatch.HandlerFunc
	}{
		{mBlock, func(ctx context.Context, _, dst []byte) ([]byte, error) {
			m.started <- struct{}{}
			select {
			case <-m.release:
				return append(dst, "true"...), nil
			case <-ctx.Done():
				return dst, ctx.Err()
			}
		}},
		{mPing, func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "true"...), nil }},
		{mBig, func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, big...), nil }},
		{mSecret, func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "true"...), nil }},
	} {
		if err := e.Register(r.name, r.h); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// newEngine builds the endpoint's engine with opts and the driver's
// methods; the endpoint is shut down at the end of the test.
func (ep *Endpoint) newEngine(t *testing.T, opts dispatch.Options) (*dispatch.Engine, *methods, func()) {
	t.Helper()
	e, closeFn := ep.New(&opts)
	m := register(t, e)
	var once bool
	shut := func() {
		if !once {
			once = true
			closeFn()
		}
	}
	t.Cleanup(func() {
		select {
		case <-m.release:
		default:
			close(m.release)
		}
		shut()
	})
	return e, m, shut
}

// code returns the error code of the one response resp (0: none).
func code(t *testing.T, resp []byte) int {
	t.Helper()
	var r struct {
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("response %q: %v", resp, err)
	}
	if r.Error == nil {
		t.Fatalf("response %q: no error", resp)
	}
	return r.Error.Code
}

func call(id int, method string) string {
	return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"` + method + `"}`
}

// stream serves e on a loopback TCP listener with opts and returns a
// connection to it, with a reader of its lines.
func (ep *Endpoint) stream(t *testing.T, e *dispatch.Engine, opts netserver.Options) (net.Conn, *bufio.Reader) {
	t.Helper()
	serve := ep.Stream
	if serve == nil {
		serve = netserver.New
	}
	srv := serve(e, &opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// answers reads n response lines and returns them by id.
func answers(t *testing.T, r *bufio.Reader, n int) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for range n {
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v (so far %q)", err, got)
		}
		var id struct{ ID json.RawMessage }
		if err := json.Unmarshal(line, &id); err != nil {
			t.Fatalf("response %q: %v", line, err)
		}
		got[string(id.ID)] = line
	}
	return got
}

func send(t *testing.T, c net.Conn, msgs ...string) {
	t.Helper()
	if _, err := c.Write([]byte(strings.Join(msgs, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
}

// overloaded: one worker, busy with a call; the next call finds none.
func overloaded(t *testing.T, ep *Endpoint) int {
	e, m, _ := ep.newEngine(t, dispatch.Options{MaxWorkers: 1})
	c, r := ep.stream(t, e, netserver.Options{})
	send(t, c, call(1, mBlock))
	<-m.started
	send(t, c, call(2, mBlock))
	got := answers(t, r, 1)
	close(m.release)
	if got["2"] == nil {
		t.Fatalf("the second call was not refused: %q", got)
	}
	return code(t, got["2"])
}

// shuttingDown: a call in progress when its endpoint shuts down.
func shuttingDown(t *testing.T, ep *Endpoint) int {
	e, m, shut := ep.newEngine(t, dispatch.Options{})
	out := make(chan []byte, 1)
	go func() { out <- e.Process(nil, []byte(call(1, mBlock))) }()
	<-m.started
	shut()
	return code(t, <-out)
}

// timeout: a call over CallTimeout.
func timeout(t *testing.T, ep *Endpoint) int {
	e, _, _ := ep.newEngine(t, dispatch.Options{CallTimeout: 20 * time.Millisecond})
	return code(t, e.Process(nil, []byte(call(1, mBlock))))
}

// limitExceeded: a client over its rate (netserver's RateLimit).
func limitExceeded(t *testing.T, ep *Endpoint) int {
	e, _, _ := ep.newEngine(t, dispatch.Options{})
	c, r := ep.stream(t, e, netserver.Options{Guard: guard.New(&guard.Options{RateLimit: 0.001, RateBurst: 1})})
	send(t, c, call(1, mPing), call(2, mPing))
	got := answers(t, r, 2)
	return code(t, got["2"])
}

// unauthorized: a stream client that does not authenticate.
func unauthorized(t *testing.T, ep *Endpoint) int {
	e, _, _ := ep.newEngine(t, dispatch.Options{})
	authn := auth.Func(func(*auth.Request) (*auth.Identity, error) { return nil, auth.ErrNoCredentials })
	c, r := ep.stream(t, e, netserver.Options{Guard: guard.New(&guard.Options{Auth: authn})})
	send(t, c, call(1, mPing))
	return code(t, answers(t, r, 1)["1"])
}

// forbidden: a call that auth.Authorize denies.
func forbidden(t *testing.T, ep *Endpoint) int {
	mapsConditions(t)
	e, _, _ := ep.newEngine(t, dispatch.Options{})
	mw, err := auth.Authorize(auth.Rules{"": {"*", "!" + mSecret}, "*": {"*"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Use(mw); err != nil {
		t.Fatal(err)
	}
	return code(t, e.Process(nil, []byte(call(1, mSecret))))
}

// tooLarge: a batch whose responses go over MaxBatchResponse.
func tooLarge(t *testing.T, ep *Endpoint) int {
	e, _, _ := ep.newEngine(t, dispatch.Options{MaxBatchResponse: 64})
	out := e.Process(nil, []byte("["+call(1, mBig)+","+call(2, mBig)+"]"))
	var rs []json.RawMessage
	if err := json.Unmarshal(out, &rs); err != nil || len(rs) != 2 {
		t.Fatalf("batch answer %q: %v", out, err)
	}
	return code(t, rs[1])
}

// respTooLarge: one response over MaxResponse.
func respTooLarge(t *testing.T, ep *Endpoint) int {
	e, _, _ := ep.newEngine(t, dispatch.Options{MaxResponse: 64})
	return code(t, e.Process(nil, []byte(call(1, mBig))))
}

// mapsConditions skips the test while the engine answers a handler's
// dispatch.Condition with its default code whatever Options.Codes say
// (the mapping in appendHandlerError that auth.Authorize relies on).
func mapsConditions(t *testing.T) {
	t.Helper()
	e := dispatch.New(&dispatch.Options{Codes: &dispatch.Codes{Forbidden: -32097}})
	deny := dispatch.Condition(encode.CodeForbidden, nil)
	_ = e.Register("x", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return dst, deny
	}))
	defer e.Close()
	if code(t, e.Process(nil, []byte(call(1, "x")))) == int(encode.CodeForbidden) {
		t.Skip("dispatch does not map a handler's Condition yet (appendHandlerError must call conditionFor)")
	}
}
