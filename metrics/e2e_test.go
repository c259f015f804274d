package metrics_test

// NOTE: the same known sequence of messages (calls, errors, a
// notification, a batch, then one message over MaxMessage) goes to a real
// server on every transport; /metrics, served by promhttp from the test's
// registry, is parsed with expfmt and every counter compared with what the
// sequence must produce. Counters not listed must be 0.

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

const (
	testTimeout = 10 * time.Second
	maxMessage  = 1024
)

// step is one message of the sequence; reply says whether a response is due.
type step struct {
	msg   string
	reply bool
}

var sequence = []step{
	{`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, true},
	{`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":2}`, true},
	{`{"jsonrpc":"2.0","method":"nope","id":3}`, true},
	{`{"jsonrpc":"2.0","method":"subtract","params":{"a":1},"id":4}`, true}, // -32602
	{`{"jsonrpc":"2.0","method":"update","params":[1]}`, false},
	{`[{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":10},` +
		`{"jsonrpc":"2.0","method":"get_data","id":11},{"jsonrpc":"2.0","method":"nope","id":12}]`, true},
}

var oversized = `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 2*maxMessage) + `"],"id":99}`

// wantCounters is what the sequence produces whatever the transport; the
// transport adds its connection counters.
func wantCounters() map[string]float64 {
	in := 0
	for _, s := range sequence {
		in += len(s.msg)
	}
	return map[string]float64{
		`jetrpc_calls_total{code="ok",method="subtract"}`:        3,
		`jetrpc_calls_total{code="-32602",method="subtract"}`:    1,
		`jetrpc_calls_total{code="-32601",method="(unknown)"}`:   2,
		`jetrpc_calls_total{code="ok",method="get_data"}`:        1,
		`jetrpc_calls_total{code="ok",method="update"}`:          1,
		`jetrpc_call_duration_seconds_count{method="subtract"}`:  4,
		`jetrpc_call_duration_seconds_count{method="get_data"}`:  1,
		`jetrpc_call_duration_seconds_count{method="update"}`:    1,
		`jetrpc_call_duration_seconds_count{method="(unknown)"}`: 2,
		`jetrpc_request_size_bytes_count`:                        float64(len(sequence)),
		`jetrpc_request_size_bytes_sum`:                          float64(in),
		`jetrpc_batch_size_count`:                                1,
		`jetrpc_batch_size_sum`:                                  3,
		`jetrpc_rejections_total{reason="message_too_large"}`:    1,
	}
}

// responseBytes is the size of the responses to the sequence, computed by
// an engine of its own: Process's, or for an event stream the sum of each
// response ProcessStream emits (a batch's members one by one).
func responseBytes(t *testing.T, stream bool) int {
	e := newEngine(t, &dispatch.Options{})
	n := 0
	for _, s := range sequence {
		if stream {
			e.ProcessStream(context.Background(), []byte(s.msg), func(resp []byte) { n += len(resp) })
		} else {
			n += len(e.Process(nil, []byte(s.msg)))
		}
	}
	return n
}

// transportCase drives one transport: start returns a client for a server
// observed by m, and the connection counters the sequence adds.
type transportCase struct {
	name  string
	conns map[string]float64
	start func(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client
}

// client sends one message and waits for its response when one is due
// (send), and sends the oversized message and waits for its refusal.
type client interface {
	send(t *testing.T, msg string, reply bool)
	sendOversized(t *testing.T)
	close()
}

func TestMetricsEveryTransport(t *testing.T) {
	for _, tc := range []transportCase{
		{"tcp", map[string]float64{`jetrpc_connections_accepted_total{transport="tcp"}`: 1}, startTCP},
		{"stdio", map[string]float64{`jetrpc_connections_accepted_total{transport="stdio"}`: 1}, startStdio},
		{"http", map[string]float64{`jetrpc_connections_accepted_total{transport="http"}`: 1}, startHTTP(false)},
		{"ws", map[string]float64{
			`jetrpc_connections_accepted_total{transport="http"}`: 1,
			`jetrpc_connections_accepted_total{transport="ws"}`:   1,
		}, startWS},
		{"sse", map[string]float64{
			`jetrpc_connections_accepted_total{transport="http"}`: 1,
			`jetrpc_connections_accepted_total{transport="sse"}`:  float64(len(sequence) - 1), // not the notification: 204
		}, startHTTP(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := metrics.New(reg, &metrics.Options{LatencySample: 1}) // exact histogram counts
			if err != nil {
				t.Fatal(err)
			}
			e := newEngine(t, &dispatch.Options{Observer: m})
			c := tc.start(t, e, &netserver.Options{Observer: m, MaxMessage: maxMessage, Logger: discard})
			for _, s := range sequence {
				c.send(t, s.msg, s.reply)
			}
			c.sendOversized(t)
			c.close()
			want := wantCounters()
			want["jetrpc_response_bytes_total"] = float64(responseBytes(t, tc.name == "sse"))
			for k, v := range tc.conns {
				want[k] = v
			}
			got := waitClosed(t, reg)
			checkCounters(t, got, want)
		})
	}
}

// scrape fetches /metrics from a promhttp handler on reg and parses it.
func scrape(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: status %d", rec.Code)
	}
	fams := make(map[string]*dto.MetricFamily)
	dec := expfmt.NewDecoder(rec.Body, expfmt.ResponseFormat(rec.Header()))
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("parse /metrics: %v", err)
		}
		fams[mf.GetName()] = &mf
	}
	return fams
}

// series flattens the families into "name{labels}" -> value: counters,
// gauges, and a histogram's _count and _sum.
func series(fams map[string]*dto.MetricFamily) (counters, others map[string]float64) {
	counters, others = map[string]float64{}, map[string]float64{}
	for name, mf := range fams {
		for _, mt := range mf.GetMetric() {
			labels := labelString(mt.GetLabel())
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				counters[name+labels] = mt.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				others[name+labels] = mt.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				counters[name+"_count"+labels] = float64(mt.GetHistogram().GetSampleCount())
				others[name+"_sum"+labels] = mt.GetHistogram().GetSampleSum()
			}
		}
	}
	return counters, others
}

func labelString(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, 0, len(ls))
	for _, l := range ls {
		parts = append(parts, l.GetName()+`="`+l.GetValue()+`"`)
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// waitClosed scrapes until no connection is open any more (the server
// notices the client's close on its own goroutine), and returns the
// families.
func waitClosed(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		fams := scrape(t, reg)
		_, gauges := series(fams)
		open := 0.0
		for k, v := range gauges {
			if strings.HasPrefix(k, "jetrpc_connections_open") {
				open += v
			}
		}
		if open == 0 {
			return fams
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections still open: %v", gauges)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkCounters compares every counter, gauge and histogram count with
// want: a series not in want must be 0 (sums are checked only when listed).
func checkCounters(t *testing.T, fams map[string]*dto.MetricFamily, want map[string]float64) {
	t.Helper()
	counters, others := series(fams)
	for k, v := range others {
		if strings.Contains(k, "_sum") {
			continue
		}
		counters[k] = v // gauges: all 0 unless listed
	}
	for k, w := range want {
		v, ok := counters[k]
		if !ok {
			v, ok = others[k]
		}
		if !ok {
			t.Errorf("%s: missing, want %v", k, w)
		} else if v != w {
			t.Errorf("%s = %v, want %v", k, v, w)
		}
	}
	for k, v := range counters {
		if _, listed := want[k]; !listed && v != 0 {
			t.Errorf("%s = %v, want 0", k, v)
		}
	}
}

// --- stream transports: TCP and stdio, NDJSON ---

type streamClient struct {
	w    io.Writer
	r    *bufio.Reader
	done func()
	nc   net.Conn
}

func (c *streamClient) close() { c.done() }

func (c *streamClient) send(t *testing.T, msg string, reply bool) {
	t.Helper()
	if c.nc != nil {
		c.nc.SetDeadline(time.Now().Add(testTimeout))
	}
	if _, err := io.WriteString(c.w, msg+"\n"); err != nil {
		t.Fatal(err)
	}
	if reply {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read response to %.40s: %v", msg, err)
		}
		if !bytes.Contains(line, []byte(`"jsonrpc":"2.0"`)) {
			t.Fatalf("response %q", line)
		}
	}
}

func (c *streamClient) sendOversized(t *testing.T) {
	t.Helper()
	c.send(t, oversized, true) // answered with -32600 and skipped
}

func startTCP(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client {
	opts.Framing = frame.NDJSON
	s := netserver.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() { shutdown(t, s.Shutdown, done) })
	nc, err := net.DialTimeout("tcp", ln.Addr().String(), testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return &streamClient{w: nc, r: bufio.NewReader(nc), nc: nc, done: func() { nc.Close() }}
}

func startStdio(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client {
	opts.Framing = frame.NDJSON
	s := netserver.New(e, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.ServeStdio(inR, outW)
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("ServeStdio did not return")
		}
	})
	return &streamClient{w: inW, r: bufio.NewReader(outR), done: func() {
		inW.Close()
		io.Copy(io.Discard, outR) // until the server is done
	}}
}

func shutdown(t *testing.T, stop func(context.Context) error, done chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := stop(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	select {
	case err := <-done:
		if err != netserver.ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(testTimeout):
		t.Error("Serve did not return")
	}
}

// --- HTTP and SSE ---

type httpClient struct {
	url string
	sse bool
	hc  *http.Client
	tr  *http.Transport
}

func (c *httpClient) post(t *testing.T, msg string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.sse {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (c *httpClient) send(t *testing.T, msg string, reply bool) {
	t.Helper()
	resp := c.post(t, msg)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := http.StatusOK
	if !reply {
		want = http.StatusNoContent
	}
	if resp.StatusCode != want || reply && !bytes.Contains(body, []byte(`"jsonrpc":"2.0"`)) {
		t.Fatalf("POST %.40s: %d %q", msg, resp.StatusCode, body)
	}
}

func (c *httpClient) sendOversized(t *testing.T) {
	t.Helper()
	resp := c.post(t, oversized)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized POST: status %d, want 413", resp.StatusCode)
	}
}

func (c *httpClient) close() { c.tr.CloseIdleConnections() }

func startHTTP(sse bool) func(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client {
	return func(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client {
		addr := serveHTTP(t, e, opts)
		tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}
		t.Cleanup(tr.CloseIdleConnections)
		return &httpClient{url: "http://" + addr + "/", sse: sse, tr: tr,
			hc: &http.Client{Transport: tr, Timeout: testTimeout}}
	}
}

// serveHTTP starts a nethttp.HTTPServer on loopback, shut down by the cleanup.
func serveHTTP(t *testing.T, e *dispatch.Engine, opts *netserver.Options) string {
	t.Helper()
	s := nethttp.New(e, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() { shutdown(t, s.Shutdown, done) })
	return ln.Addr().String()
}

// --- WebSocket ---

type wsClient struct{ c *websocket.Conn }

func (c *wsClient) send(t *testing.T, msg string, reply bool) {
	t.Helper()
	c.c.SetWriteDeadline(time.Now().Add(testTimeout))
	if err := c.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if reply {
		c.c.SetReadDeadline(time.Now().Add(testTimeout))
		if _, b, err := c.c.ReadMessage(); err != nil || !bytes.Contains(b, []byte(`"jsonrpc":"2.0"`)) {
			t.Fatalf("response to %.40s: %q, %v", msg, b, err)
		}
	}
}

func (c *wsClient) sendOversized(t *testing.T) {
	t.Helper()
	c.c.SetWriteDeadline(time.Now().Add(testTimeout))
	if err := c.c.WriteMessage(websocket.TextMessage, []byte(oversized)); err != nil {
		t.Fatal(err)
	}
	c.c.SetReadDeadline(time.Now().Add(testTimeout))
	_, _, err := c.c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("after the oversized message: %v, want close 1009", err)
	}
}

func (c *wsClient) close() { c.c.Close() }

func startWS(t *testing.T, e *dispatch.Engine, opts *netserver.Options) client {
	addr := serveHTTP(t, e, opts)
	d := websocket.Dialer{HandshakeTimeout: testTimeout}
	c, resp, err := d.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	t.Cleanup(func() { c.Close() })
	return &wsClient{c: c}
}
