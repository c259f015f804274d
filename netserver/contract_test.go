package netserver

// NOTE: the handler contract (#28) over real transports. Handlers written
// the way users write them return every kind of result slice (dst extended,
// dst grown past its capacity, fresh slices of every length, a shared
// slice, the params, nil, invalid JSON), registered Inline and the default
// way; many calls are pipelined on one connection, single and in batches,
// and every answer is read back with encoding/json and matched by id. The
// last test keeps the handlers' contexts past their calls.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// resultValue returns a JSON value of exactly n >= 2 bytes: a string, or
// for even n >= 8 an object holding one.
func resultValue(n int) []byte {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	pad := func(b []byte, k int) []byte {
		for i := range k {
			b = append(b, chars[i%len(chars)])
		}
		return b
	}
	if n >= 8 && n%2 == 0 {
		return append(pad([]byte(`{"a":"`), n-8), `"}`...)
	}
	return append(pad([]byte(`"`), n-2), '"')
}

// prettyValue is resultValue(n-14) pretty-printed the way json.MarshalIndent
// and json.Encoder write it: newlines inside and one after.
func prettyValue(n int) []byte {
	return []byte("{\n  \"a\": " + string(resultValue(n-14)) + "\n}\n")
}

// paramsValue is params of n >= 4 bytes for a handler that returns them.
func paramsValue(n int) []byte { return []byte("[" + string(resultValue(n-2)) + "]") }

var (
	staticMu      sync.Mutex
	staticResults = map[int][]byte{}
)

// staticResult is a slice shared by every call that returns it, as a
// package-level `var okResult = []byte(...)` is.
func staticResult(n int) []byte {
	staticMu.Lock()
	defer staticMu.Unlock()
	b, ok := staticResults[n]
	if !ok {
		b = resultValue(n)
		staticResults[n] = b
	}
	return b
}

// sizeParam reads the n of params [n].
func sizeParam(params []byte) (int, error) {
	var p [1]int
	if err := json.Unmarshal(params, &p); err != nil {
		return 0, dispatch.NewError(-32602, "Invalid params", nil)
	}
	return p[0], nil
}

// resultShapes are the handlers of the table: name, handler.
var resultShapes = []struct {
	name string
	h    func(ctx context.Context, params, dst []byte) ([]byte, error)
}{
	{"extend", func(_ context.Context, params, dst []byte) ([]byte, error) {
		n, err := sizeParam(params)
		return append(dst, resultValue(n)...), err
	}},
	{"fresh", func(_ context.Context, params, dst []byte) ([]byte, error) {
		n, err := sizeParam(params)
		return resultValue(n), err
	}},
	{"static", func(_ context.Context, params, dst []byte) ([]byte, error) {
		n, err := sizeParam(params)
		return staticResult(n), err
	}},
	{"grown", func(_ context.Context, params, dst []byte) ([]byte, error) {
		n, err := sizeParam(params)
		out := slices.Grow(dst, cap(dst)-len(dst)+1) // past its capacity: a new array
		return append(out, resultValue(n)...), err
	}},
	{"pretty", func(_ context.Context, params, dst []byte) ([]byte, error) {
		n, err := sizeParam(params)
		var v any
		if err := json.Unmarshal(prettyValue(n), &v); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return buf.Bytes(), err
	}},
	{"params", func(_ context.Context, params, dst []byte) ([]byte, error) {
		return params, nil
	}},
	{"nil", func(_ context.Context, params, dst []byte) ([]byte, error) {
		return nil, nil
	}},
	{"empty", func(_ context.Context, params, dst []byte) ([]byte, error) {
		return dst, nil
	}},
}

// badResults are raw results that are not one valid JSON value.
var badResults = map[string]string{
	"word":   `hello`,
	"trunc":  `{"a":1`,
	"two":    `1 2`,
	"extra":  `{"a":1}}`,
	"opened": `"abc`,
	"spaces": "  \n ",
	"utf8":   "\"\xff\"",
}

// badMethods answer their params' name from badResults: "bad" appends it
// to dst, "bad_fresh" returns a fresh slice.
func badMethods(prefix string, inline bool) []dispatch.Method {
	word := func(params []byte) string {
		var p [1]string
		json.Unmarshal(params, &p)
		return badResults[p[0]]
	}
	return []dispatch.Method{
		{Name: prefix + "bad", Inline: inline, Handler: dispatch.HandlerFunc(
			func(_ context.Context, params, dst []byte) ([]byte, error) {
				return append(dst, word(params)...), nil
			})},
		{Name: prefix + "bad_fresh", Inline: inline, Handler: dispatch.HandlerFunc(
			func(_ context.Context, params, dst []byte) ([]byte, error) {
				return []byte(word(params)), nil
			})},
	}
}

// contractMethods registers every shape, "i.<shape>" Inline and
// "d.<shape>" the default way, and the bad methods likewise.
func contractMethods() engineSetup {
	return func(e *dispatch.Engine) error {
		for _, reg := range []struct {
			prefix string
			inline bool
		}{{"i.", true}, {"d.", false}} {
			for _, s := range resultShapes {
				m := dispatch.Method{Name: reg.prefix + s.name, Inline: reg.inline, Handler: dispatch.HandlerFunc(s.h)}
				if err := e.RegisterMethod(m); err != nil {
					return err
				}
			}
			for _, m := range badMethods(reg.prefix, reg.inline) {
				if err := e.RegisterMethod(m); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// want is what one call must be answered: a result (compared as JSON) or
// an error code.
type want struct {
	result []byte
	code   int
}

// rpcCall is one call of a script.
type rpcCall struct {
	method string
	params []byte
	want   want
	notify bool // a notification: nothing may answer it
}

// resultCalls is the table: every shape, Inline and default, with results
// of every length from 2 to maxLen bytes (nil and empty at a few).
func resultCalls(maxLen int) []rpcCall {
	var calls []rpcCall
	for _, prefix := range []string{"i.", "d."} {
		for n := 2; n <= maxLen; n++ {
			c := func(shape string, params, result []byte) {
				calls = append(calls, rpcCall{method: prefix + shape, params: params, want: want{result: result}})
			}
			sz := []byte("[" + strconv.Itoa(n) + "]")
			c("extend", sz, resultValue(n))
			c("fresh", sz, resultValue(n))
			c("static", sz, resultValue(n))
			c("grown", sz, resultValue(n))
			if n >= 16 {
				c("pretty", sz, prettyValue(n))
			}
			if n >= 4 {
				c("params", paramsValue(n), paramsValue(n))
			}
			if n%37 == 0 {
				c("nil", sz, []byte("null"))
				c("empty", sz, []byte("null"))
			}
		}
	}
	return calls
}

// badCalls is one call of each bad result, each method, Inline and default.
func badCalls() []rpcCall {
	var calls []rpcCall
	for _, prefix := range []string{"i.", "d."} {
		for _, m := range []string{"bad", "bad_fresh"} {
			for _, w := range slices.Sorted(mapsKeys(badResults)) {
				calls = append(calls, rpcCall{method: prefix + m, params: []byte(`["` + w + `"]`), want: want{code: -32603}})
			}
		}
	}
	return calls
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// script is the messages of a test and the answers they are owed, by id.
type script struct {
	msgs  [][]byte
	owed  map[string]want
	calls int // responses owed
	runs  int // calls and notifications
}

// request renders a call with id (ignored for a notification).
func request(c rpcCall, id int) []byte {
	b := []byte(`{"jsonrpc":"2.0","method":"` + c.method + `"`)
	if c.params != nil {
		b = append(append(b, `,"params":`...), c.params...)
	}
	if !c.notify {
		b = append(b, `,"id":`...)
		b = appendID(b, id)
	}
	return append(b, '}')
}

// appendID writes id as a number, or for odd ids as a string.
func appendID(b []byte, id int) []byte {
	if id%2 == 1 {
		return append(strconv.AppendInt(append(b, `"s`...), int64(id), 10), '"')
	}
	return strconv.AppendInt(b, int64(id), 10)
}

func idKey(id int) string { return string(appendID(nil, id)) }

// newScript sends every call once alone and once in a batch of 1 to 12
// members (shuffled, with a notification now and then), ids numbered from
// first.
func newScript(calls []rpcCall, first int, seed uint64) *script {
	s := &script{owed: map[string]want{}}
	id := first
	add := func(c rpcCall) []byte {
		id++
		s.runs++
		if !c.notify {
			s.owed[idKey(id)] = c.want
			s.calls++
		}
		return request(c, id)
	}
	for _, c := range calls {
		s.msgs = append(s.msgs, add(c))
	}
	r := rand.New(rand.NewPCG(seed, 1))
	shuffled := slices.Clone(calls)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for len(shuffled) > 0 {
		k := min(1+r.IntN(12), len(shuffled))
		batch := []byte("[")
		for i, c := range shuffled[:k] {
			if i > 0 {
				batch = append(batch, ',')
			}
			batch = append(batch, add(c)...)
			if r.IntN(8) == 0 { // a notification beside it: it must answer nothing
				c.notify = true
				batch = append(append(batch, ','), add(c)...)
			}
		}
		s.msgs = append(s.msgs, append(batch, ']'))
		shuffled = shuffled[k:]
	}
	return s
}

// check reads one frame (a response or a batch of them) and ticks off what
// it answers; it fails the test on anything wrong.
func (s *script) check(t testing.TB, frame []byte) {
	t.Helper()
	var objs []json.RawMessage
	if t0 := bytes.TrimLeft(frame, " \t\r\n"); len(t0) > 0 && t0[0] == '[' {
		if err := json.Unmarshal(frame, &objs); err != nil {
			t.Fatalf("batch answer is not JSON (%v): %.300q", err, frame)
		}
		if len(objs) == 0 {
			t.Fatalf("empty batch answer %q", frame)
		}
	} else {
		objs = []json.RawMessage{frame}
	}
	for _, o := range objs {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(o, &r); err != nil {
			t.Fatalf("answer is not one JSON object (%v): %.300q", err, o)
		}
		res, hasRes := r["result"]
		e, hasErr := r["error"]
		id := string(r["id"])
		w, ok := s.owed[id]
		switch {
		case len(r) != 3 || string(r["jsonrpc"]) != `"2.0"` || hasRes == hasErr:
			t.Fatalf("malformed response %.300s", o)
		case !ok:
			t.Fatalf("response to id %s, not owed (or twice): %.300s", id, o)
		case w.code != 0:
			var eo struct{ Code int }
			if !hasErr || json.Unmarshal(e, &eo) != nil || eo.Code != w.code {
				t.Fatalf("id %s: want error %d, got %.300s", id, w.code, o)
			}
		case !hasRes || !jsonEqual(res, w.result):
			t.Fatalf("id %s: want result %.300s, got %.300s", id, w.result, o)
		}
		delete(s.owed, id)
	}
}

// jsonEqual compares two JSON texts as JSON (whitespace aside).
func jsonEqual(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// pipe is one connection as a script sees it.
type pipe struct {
	send  func(msg []byte) error // buffers or writes one message
	flush func() error           // writes what send buffered
	recv  func() []byte          // the next answer
	stop  func()                 // unblocks a send in progress (closes the connection)
}

// run pipelines the script's messages through send on a goroutine while
// reading the answers with recv, until every call is answered. stop
// unblocks a send in progress (it closes the connection).
func (s *script) run(t *testing.T, p pipe) {
	t.Helper()
	send, flush, recv, stop := p.send, p.flush, p.recv, p.stop
	sent := make(chan error, 1)
	go func() {
		for _, m := range s.msgs {
			if err := send(m); err != nil {
				sent <- err
				return
			}
		}
		sent <- flush()
	}()
	t.Cleanup(func() {
		stop()
		<-sent
	})
	for len(s.owed) > 0 {
		s.check(t, recv())
	}
	select {
	case err := <-sent:
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		sent <- nil
	case <-time.After(testTimeout):
		t.Fatal("sending did not end")
	}
}

// tcpPipe returns send, flush and recv over a TCP client: frames are
// written in chunks of about 16 KiB.
func tcpPipe(c *client) pipe {
	var buf []byte
	flush := func() error {
		c.nc.SetWriteDeadline(time.Now().Add(testTimeout))
		_, err := c.nc.Write(buf)
		buf = buf[:0]
		return err
	}
	send := func(m []byte) error {
		buf = frame.AppendFrame(buf, c.kind, m)
		if len(buf) < 16<<10 {
			return nil
		}
		return flush()
	}
	return pipe{send, flush, c.recv, func() { c.nc.Close() }}
}

// wsPipe is tcpPipe over a WebSocket connection.
func wsPipe(t *testing.T, c *websocket.Conn) pipe {
	send := func(m []byte) error {
		c.SetWriteDeadline(time.Now().Add(testTimeout))
		return c.WriteMessage(websocket.TextMessage, m)
	}
	return pipe{send, func() error { return nil }, func() []byte { return wsRecv(t, c) }, func() { c.Close() }}
}

// httpPipe pipelines POST requests on one HTTP/1.1 connection to addr
// (host:port): recv reads the responses in order, skipping 204s.
func httpPipe(t *testing.T, addr string) pipe {
	nc, err := net.DialTimeout("tcp", addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	var buf []byte
	flush := func() error {
		nc.SetWriteDeadline(time.Now().Add(testTimeout))
		_, err := nc.Write(buf)
		buf = buf[:0]
		return err
	}
	send := func(m []byte) error {
		buf = fmt.Appendf(buf, "POST /rpc HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(m))
		buf = append(buf, m...)
		if len(buf) < 16<<10 {
			return nil
		}
		return flush()
	}
	br := bufio.NewReader(nc)
	recv := func() []byte {
		t.Helper()
		for {
			nc.SetReadDeadline(time.Now().Add(testTimeout))
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("read HTTP response: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("read HTTP body: %v", err)
			}
			switch {
			case resp.StatusCode == http.StatusNoContent && len(body) == 0:
				continue
			case resp.StatusCode != http.StatusOK:
				t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
			}
			return body
		}
	}
	return pipe{send, flush, recv, func() { nc.Close() }}
}

// hostOf returns host:port of a ws:// URL.
func hostOf(url string) string {
	return strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/ws")
}

func TestResultShapesTCP(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			ts := startServer(t, &Options{Framing: kind}, contractMethods())
			s := newScript(resultCalls(300), 0, uint64(kind))
			s.run(t, tcpPipe(ts.dial(t, kind)))
		})
	}
}

func TestResultShapesHTTP(t *testing.T) {
	_, url := startWS(t, nil, contractMethods())
	s := newScript(resultCalls(300), 0, 7)
	s.run(t, httpPipe(t, hostOf(url)))
}

func TestResultShapesWS(t *testing.T) {
	_, url := startWS(t, nil, contractMethods())
	s := newScript(resultCalls(300), 0, 8)
	s.run(t, wsPipe(t, dialWS(t, url)))
}

// badScript is the invalid results among good calls: a good call before
// and after each bad one, batches of the mix (resultCalls(40) gives the
// good ones).
func badScript(seed uint64) *script {
	good := resultCalls(40)
	var calls []rpcCall
	for i, b := range badCalls() {
		calls = append(calls, good[(2*i)%len(good)], b, good[(2*i+1)%len(good)])
	}
	return newScript(calls, 1000, seed)
}

func TestInvalidResultTCP(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			ts := startServer(t, &Options{Framing: kind}, contractMethods())
			c := ts.dial(t, kind)
			badScript(uint64(kind)).run(t, tcpPipe(c))
			// The connection goes on.
			expectResult(t, c.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"end"}`), `"end"`, "19")
		})
	}
}

func TestInvalidResultStdio(t *testing.T) {
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header} {
		t.Run(kind.String(), func(t *testing.T) {
			_, c := startStdio(t, &Options{Framing: kind}, kind, contractMethods())
			var buf []byte
			flush := func() error {
				_, err := c.w.Write(buf)
				buf = buf[:0]
				return err
			}
			send := func(m []byte) error {
				buf = frame.AppendFrame(buf, kind, m)
				if len(buf) < 16<<10 {
					return nil
				}
				return flush()
			}
			stop := func() { c.w.(io.Closer).Close() }
			badScript(uint64(kind)).run(t, pipe{send, flush, c.recv, stop})
		})
	}
}

func TestInvalidResultHTTP(t *testing.T) {
	_, url := startWS(t, nil, contractMethods())
	badScript(3).run(t, httpPipe(t, hostOf(url)))
}

func TestInvalidResultWS(t *testing.T) {
	_, url := startWS(t, nil, contractMethods())
	c := dialWS(t, url)
	badScript(4).run(t, wsPipe(t, c))
	wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"end"}`)
	expectResult(t, wsRecv(t, c), `"end"`, "19")
}

// connKey is a value the connection's context carries (Options.ConnContext).
type connKey struct{}

// keptContexts is what the "keep" handlers saw: every call's context, its
// id, and what their goroutines found wrong.
type keptContexts struct {
	mu       sync.Mutex
	ctxs     []context.Context
	detached []context.Context
	ids      [][]byte
	problems []string
	wg       sync.WaitGroup
	stop     chan struct{} // closed by the test's cleanup
}

func (k *keptContexts) problem(format string, args ...any) {
	k.mu.Lock()
	k.problems = append(k.problems, fmt.Sprintf(format, args...))
	k.mu.Unlock()
}

// keepMethod stores its context and starts a goroutine that uses it while
// the call runs (the handler waits for its first look) and after it ended,
// while other calls run on the connection.
func (k *keptContexts) keepMethod(name string, inline bool) dispatch.Method {
	return dispatch.Method{Name: name, Inline: inline, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			id := bytes.Clone(dispatch.RequestID(ctx))
			meta := bytes.Clone(dispatch.Meta(ctx))
			det := dispatch.Detach(ctx)
			k.mu.Lock()
			k.ctxs = append(k.ctxs, ctx)
			k.detached = append(k.detached, det)
			k.ids = append(k.ids, id)
			k.mu.Unlock()
			looked := make(chan struct{})
			k.wg.Add(1)
			go func() {
				defer k.wg.Done()
				// During the call: its own values (the bytes are valid
				// until the handler returns, which waits for this).
				if got := dispatch.RequestID(ctx); !bytes.Equal(got, id) {
					k.problem("live ctx of %s shows id %s", id, got)
				}
				if got := dispatch.Meta(ctx); !bytes.Equal(got, meta) {
					k.problem("live ctx of %s shows _meta %s, want %s", id, got, meta)
				}
				if string(dispatch.MethodName(ctx)) != name {
					k.problem("live ctx of %s shows method %s", id, dispatch.MethodName(ctx))
				}
				close(looked)
				// After: done, and never another call's values.
				select {
				case <-ctx.Done():
				case <-k.stop:
					return
				case <-time.After(testTimeout):
					k.problem("ctx of %s not done %v after its call", id, testTimeout)
					return
				}
				for range 50 {
					if ctx.Err() == nil {
						k.problem("ctx of %s: done but Err nil", id)
					}
					if dispatch.RequestID(ctx) != nil || dispatch.MethodName(ctx) != nil || dispatch.Meta(ctx) != nil {
						k.problem("ctx of %s shows values after its call", id)
						return
					}
					if ctx.Value(connKey{}) != "conn" {
						k.problem("ctx of %s lost the connection's value", id)
					}
					if !bytes.Equal(dispatch.RequestID(det), id) || det.Err() != nil {
						k.problem("detached ctx of %s: id %s err %v", id, dispatch.RequestID(det), det.Err())
					}
					time.Sleep(50 * time.Microsecond)
				}
			}()
			select {
			case <-looked:
			case <-time.After(testTimeout):
				return nil, errors.New("goroutine did not look")
			}
			return append(dst, id...), nil
		})}
}

func TestKeptContextTCP(t *testing.T) {
	k := &keptContexts{stop: make(chan struct{})}
	opts := &Options{ConnContext: func(ctx context.Context) context.Context {
		return context.WithValue(ctx, connKey{}, "conn")
	}}
	ts := startServer(t, opts, withMethod(k.keepMethod("keep_inline", true)), withMethod(k.keepMethod("keep", false)))
	t.Cleanup(func() {
		close(k.stop)
		done := make(chan struct{})
		go func() { k.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Error("the handlers' goroutines did not end")
		}
	})
	var calls []rpcCall
	for i := range 300 {
		c := rpcCall{method: "keep", params: []byte(`[` + strconv.Itoa(i) + `]`)}
		if i%2 == 0 {
			c.method = "keep_inline"
		}
		calls = append(calls, c)
	}
	s := newScript(calls, 0, 1)
	for i, m := range s.msgs { // _meta on some of the singles
		if i%3 == 0 && m[0] == '{' {
			s.msgs[i] = append([]byte(`{"_meta":{"n":`+strconv.Itoa(i)+`},`), m[1:]...)
		}
	}
	// Each call answers its own id.
	for id := range s.owed {
		s.owed[id] = want{result: []byte(id)}
	}
	// Two connections at once: contexts of one never show the other's.
	c2 := ts.dial(t, frame.NDJSON)
	s2 := newScript(calls, 10000, 2)
	for id := range s2.owed {
		s2.owed[id] = want{result: []byte(id)}
	}
	other := make(chan error, 1)
	go func() {
		_, err := c2.nc.Write(append(bytes.Join(s2.msgs, []byte("\n")), '\n'))
		other <- err
	}()
	s.run(t, tcpPipe(ts.dial(t, frame.NDJSON)))
	if err := <-other; err != nil {
		t.Fatal(err)
	}
	for len(s2.owed) > 0 {
		s2.check(t, c2.recv())
	}
	// Every call answered: every context is done, without values.
	k.mu.Lock()
	ctxs, dets, ids := slices.Clone(k.ctxs), slices.Clone(k.detached), slices.Clone(k.ids)
	k.mu.Unlock()
	if want := s.runs + s2.runs; len(ctxs) != want {
		t.Fatalf("%d calls ran, want %d", len(ctxs), want)
	}
	for i, ctx := range ctxs {
		select {
		case <-ctx.Done():
		default:
			t.Fatalf("ctx of %s not done once its call was answered", ids[i])
		}
		if dispatch.RequestID(ctx) != nil || dispatch.MethodName(ctx) != nil || ctx.Err() == nil {
			t.Fatalf("ctx of %s after its call: id %s method %s err %v", ids[i],
				dispatch.RequestID(ctx), dispatch.MethodName(ctx), ctx.Err())
		}
		if name := dispatch.MethodName(dets[i]); !bytes.HasPrefix(name, []byte("keep")) || dets[i].Done() != nil {
			t.Fatalf("detached ctx of %s: method %s", ids[i], name)
		}
	}
	// The goroutines' checks.
	done := make(chan struct{})
	go func() { k.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatal("the handlers' goroutines did not end")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.problems) > 0 {
		t.Fatalf("%d problems, first: %s", len(k.problems), strings.Join(k.problems[:min(5, len(k.problems))], "; "))
	}
}
