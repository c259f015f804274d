package tracing_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/jetrpc/jetrpc/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

const (
	testTimeout = 10 * time.Second
	traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentID    = "00f067aa0ba902b7"
	traceparent = "00-" + traceID + "-" + parentID + "-01"
)

// newTraced returns an engine with the demo methods traced into an
// in-memory exporter.
func newTraced(tb testing.TB, sampler sdktrace.Sampler) (*dispatch.Engine, *tracetest.InMemoryExporter) {
	tb.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sampler))
	tb.Cleanup(func() { tp.Shutdown(context.Background()) })
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	if err := e.Use(tracing.Middleware(&tracing.Options{TracerProvider: tp})); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e, exp
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value)
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkSpan checks one span of method: kind, the JSON-RPC attributes, and
// its parent (traceparent's when remote, else none).
func checkSpan(t *testing.T, s tracetest.SpanStub, method, id string, remote bool, code int) {
	t.Helper()
	a := attrs(s)
	if s.Name != method || s.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q kind %v, want %q server", s.Name, s.SpanKind, method)
	}
	for k, want := range map[attribute.Key]string{
		tracing.KeySystem: "jsonrpc", tracing.KeyMethod: method, tracing.KeyVersion: "2.0",
	} {
		if got := a[k].AsString(); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got, ok := a[tracing.KeyRequestID]; id != "" && got.AsString() != id || id == "" && ok {
		t.Errorf("request_id = %q, want %q", got.AsString(), id)
	}
	if got := a[tracing.KeyErrorCode]; int(got.AsInt64()) != code {
		t.Errorf("error_code = %v, want %d", got.AsInt64(), code)
	}
	if (code != 0) != (s.Status.Code == codes.Error) {
		t.Errorf("status %v for code %d", s.Status, code)
	}
	p := s.Parent
	switch {
	case remote && (p.TraceID().String() != traceID || p.SpanID().String() != parentID || !p.IsRemote()):
		t.Errorf("parent %v, want the traceparent's %s/%s", p, traceID, parentID)
	case remote && s.SpanContext.TraceID().String() != traceID:
		t.Errorf("trace id %s, want %s", s.SpanContext.TraceID(), traceID)
	case !remote && p.IsValid():
		t.Errorf("parent %v, want none", p)
	}
}

func oneSpan(t *testing.T, exp *tracetest.InMemoryExporter) tracetest.SpanStub {
	t.Helper()
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1: %v", len(spans), spans)
	}
	exp.Reset()
	return spans[0]
}

// TestProcessMeta: the parent comes from _meta when the request goes
// through Process without a transport.
func TestProcessMeta(t *testing.T) {
	e, exp := newTraced(t, sdktrace.AlwaysSample())
	f := func(msg, method, id string, remote bool, code int) {
		t.Helper()
		e.Process(nil, []byte(msg))
		checkSpan(t, oneSpan(t, exp), method, id, remote, code)
	}
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1,"_meta":{"traceparent":"`+traceparent+`"}}`, "subtract", "1", true, 0)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":"a","_meta":{"x":1,"traceparent":"`+traceparent+`","tracestate":"k=v"}}`, "subtract", "a", true, 0)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"a":1},"id":2,"_meta":{"traceparent":"`+traceparent+`"}}`, "subtract", "2", true, -32602)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":3}`, "subtract", "3", false, 0)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":4,"_meta":{"traceparent":"00-bad"}}`, "subtract", "4", false, 0)
	f(`{"jsonrpc":"2.0","method":"update","params":[1],"_meta":{"traceparent":"`+traceparent+`"}}`, "update", "", true, 0)
	f(`{"jsonrpc":"2.0","method":"fail","params":{"code":7,"message":"no"},"id":5}`, "fail", "5", false, 7)
	f(`{"jsonrpc":"2.0","method":"panic","id":6}`, "panic", "6", false, -32603)

	e.Process(nil, []byte(`[{"jsonrpc":"2.0","method":"get_data","id":1},{"jsonrpc":"2.0","method":"echo","id":2,"_meta":{"traceparent":"`+traceparent+`"}}]`))
	if spans := exp.GetSpans(); len(spans) != 2 {
		t.Errorf("batch: %d spans, want one per member", len(spans))
	}
	exp.Reset()

	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1,"_meta":{"traceparent":"`+traceparent+`"}}`))
	s := oneSpan(t, exp)
	if got := s.Parent.TraceState().String(); got != "" {
		t.Errorf("tracestate %q, want none", got)
	}
}

// TestTraceState: tracestate from _meta reaches the span's context.
func TestTraceState(t *testing.T) {
	e, exp := newTraced(t, sdktrace.AlwaysSample())
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"echo","id":1,"_meta":{"traceparent":"`+traceparent+`","tracestate":"congo=t61rcWkgMzE"}}`))
	s := oneSpan(t, exp)
	if got := s.SpanContext.TraceState().Get("congo"); got != "t61rcWkgMzE" {
		t.Errorf("tracestate congo = %q", got)
	}
}

// TestSampledOut: a parent whose sampled flag is off, under the default
// parent-based sampler, exports no span, and the call is answered.
func TestSampledOut(t *testing.T) {
	e, exp := newTraced(t, sdktrace.ParentBased(sdktrace.AlwaysSample()))
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[3,2],"id":1,"_meta":{"traceparent":"00-`+traceID+`-`+parentID+`-00"}}`))
	if !strings.Contains(string(out), `"result":1`) {
		t.Fatalf("response %s", out)
	}
	if spans := exp.GetSpans(); len(spans) != 0 {
		t.Errorf("%d spans exported for a sampled-out trace", len(spans))
	}
}

// TestHTTPHeaders: over HTTP the parent comes from the traceparent header
// (netserver puts it into the call's context).
func TestHTTPHeaders(t *testing.T) {
	e, exp := newTraced(t, sdktrace.AlwaysSample())
	addr := serveHTTP(t, e)
	post := func(body string, header bool) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
		if header {
			req.Header.Set("traceparent", traceparent)
			req.Header.Set("tracestate", "congo=t61rcWkgMzE")
		}
		resp, err := (&http.Client{Timeout: testTimeout}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	post(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":7}`, true)
	s := oneSpan(t, exp)
	checkSpan(t, s, "subtract", "7", true, 0)
	if got := s.SpanContext.TraceState().Get("congo"); got != "t61rcWkgMzE" {
		t.Errorf("tracestate congo = %q", got)
	}
	if got := attrs(s)[tracing.KeyTransport].AsString(); got != "http" {
		t.Errorf("transport %q, want http", got)
	}
	post(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":8}`, false)
	checkSpan(t, oneSpan(t, exp), "subtract", "8", false, 0)
}

// TestStreamMeta: over TCP and WebSocket the parent comes from _meta.
func TestStreamMeta(t *testing.T) {
	msg := `{"jsonrpc":"2.0","method":"subtract","params":[5,1],"id":"s","_meta":{"traceparent":"` + traceparent + `"}}`
	t.Run("tcp", func(t *testing.T) {
		e, exp := newTraced(t, sdktrace.AlwaysSample())
		s := netserver.New(e, &netserver.Options{Framing: frame.NDJSON, Logger: slog.New(slog.DiscardHandler)})
		ln := listen(t)
		done := make(chan error, 1)
		go func() { done <- s.Serve(ln) }()
		defer stop(t, s.Shutdown, done)
		nc, err := net.DialTimeout("tcp", ln.Addr().String(), testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(testTimeout))
		io.WriteString(nc, msg+"\n")
		if _, err := bufio.NewReader(nc).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		sp := oneSpan(t, exp)
		checkSpan(t, sp, "subtract", "s", true, 0)
		if got := attrs(sp)[tracing.KeyTransport].AsString(); got != "tcp" {
			t.Errorf("transport %q, want tcp", got)
		}
	})
	t.Run("ws", func(t *testing.T) {
		e, exp := newTraced(t, sdktrace.AlwaysSample())
		addr := serveHTTP(t, e)
		d := websocket.Dialer{HandshakeTimeout: testTimeout}
		c, resp, err := d.Dial("ws://"+addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		defer c.Close()
		c.SetWriteDeadline(time.Now().Add(testTimeout))
		c.SetReadDeadline(time.Now().Add(testTimeout))
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ReadMessage(); err != nil {
			t.Fatal(err)
		}
		checkSpan(t, oneSpan(t, exp), "subtract", "s", true, 0)
	})
}

func TestParseTraceParent(t *testing.T) {
	f := func(v string, ok bool) {
		t.Helper()
		if _, got := tracing.ParseTraceParent([]byte(v)); got != ok {
			t.Errorf("ParseTraceParent(%q) ok = %v, want %v", v, got, ok)
		}
	}
	f(traceparent, true)
	f("00-"+traceID+"-"+parentID+"-00", true)
	f("01-"+traceID+"-"+parentID+"-01-later", true)
	f("00-"+traceID+"-"+parentID+"-01-x", false) // version 00 has no more fields
	f("ff-"+traceID+"-"+parentID+"-01", false)
	f("00-00000000000000000000000000000000-"+parentID+"-01", false)
	f("00-"+traceID+"-0000000000000000-01", false)
	f("00-"+strings.ToUpper(traceID)+"-"+parentID+"-01", false)
	f("00-"+traceID+"-"+parentID, false)
	f("", false)
	sc, _ := tracing.ParseTraceParent([]byte(traceparent))
	if got := string(tracing.AppendTraceParent(nil, sc)); got != traceparent {
		t.Errorf("AppendTraceParent = %q, want %q", got, traceparent)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func serveHTTP(t *testing.T, e *dispatch.Engine) string {
	t.Helper()
	s := nethttp.New(e, &netserver.Options{Logger: slog.New(slog.DiscardHandler)})
	ln := listen(t)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() { stop(t, s.Shutdown, done) })
	return ln.Addr().String()
}

func stop(t *testing.T, shutdown func(context.Context) error, done chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Error("Serve did not return")
	}
}
