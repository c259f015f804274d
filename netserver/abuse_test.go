package netserver

// NOTE: abuse tests. Each runs a misbehaving client (or several) against a
// server on loopback while a well-behaved client (probeTCP) keeps calling on
// a connection of its own; the test checks the limit that must hold, that
// the well-behaved client got every answer right, and logs its latency. The
// idle-connection test is in abuse_idle_test.go, the HTTP ones in
// http_abuse_test.go; the client that never reads is TestNeverReadingClient
// (conn_test.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/internal/abuse"
)

// probeTCP starts a well-behaved client on a connection of its own: subtract
// calls one after another, each answer checked byte for byte.
func probeTCP(t *testing.T, addr string) *abuse.Prober {
	t.Helper()
	return probeFramed(t, addr, frame.NDJSON)
}

// probeFramed is probeTCP with the given framing.
func probeFramed(t *testing.T, addr string, kind frame.Kind) *abuse.Prober {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fr := frame.NewReader(nc, kind, 0)
	var msg []byte
	return abuse.Start(func(i int) error {
		id := strconv.Itoa(i)
		msg = frame.AppendFrame(msg[:0], kind, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[`+id+`,1],"id":`+id+`}`))
		nc.SetDeadline(time.Now().Add(testTimeout))
		if _, err := nc.Write(msg); err != nil {
			return err
		}
		got, err := fr.Next()
		if err != nil {
			return err
		}
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":` + strconv.Itoa(i-1) + `}`; string(got) != want {
			return fmt.Errorf("got %s, want %s", got, want)
		}
		return nil
	}, time.Millisecond)
}

// reportProbe stops p, fails the test if a call went wrong and logs the
// latencies.
func reportProbe(t *testing.T, p *abuse.Prober, during string) {
	t.Helper()
	st, err := p.Stop()
	if err != nil {
		t.Errorf("well-behaved client during %s: %v", during, err)
	}
	t.Logf("well-behaved client during %s: %v", during, st)
}

// serveWith is startServer with engine options.
func serveWith(t *testing.T, eopts dispatch.Options, opts *Options, setup ...engineSetup) *testServer {
	t.Helper()
	checkGoroutines(t)
	eopts.Logger = quiet
	e := dispatch.New(&eopts)
	for _, f := range append([]engineSetup{demo.Register}, setup...) {
		if err := f(e); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(e.Close)
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	return serveOn(t, New(e, &o))
}

// TestAbuseSlowloris: clients that send a frame a byte every 100 ms, on each
// framing, are cut off by ReadTimeout while another client is served.
func TestAbuseSlowloris(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	ts := startServer(t, &Options{ReadTimeout: readTimeout})
	p := probeTCP(t, ts.addr)
	var wg sync.WaitGroup
	cut := make([]time.Duration, len(framings))
	for i, kind := range framings {
		nc := ts.dial(t, kind).nc
		wg.Go(func() { cut[i] = slowloris(nc, frame.AppendFrame(nil, kind, []byte(subtractCall))) })
	}
	wg.Wait()
	reportProbe(t, p, "slowloris")
	for i, d := range cut {
		t.Logf("slowloris on %v cut off after %v", framings[i], d.Round(time.Millisecond))
		if d < readTimeout || d > readTimeout+2*time.Second {
			t.Errorf("slowloris on %v cut off after %v, ReadTimeout %v", framings[i], d, readTimeout)
		}
	}
}

// slowloris sends msg but its last byte, one byte every 100 ms, and returns
// how long the server took to close the connection (or a large value when
// it never did).
func slowloris(nc net.Conn, msg []byte) time.Duration {
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		nc.SetReadDeadline(time.Now().Add(testTimeout))
		io.Copy(io.Discard, nc)
		close(closed)
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; {
		select {
		case <-closed:
			return time.Since(start)
		case <-tick.C:
			if i < len(msg)-1 {
				nc.Write(msg[i : i+1])
				i++
			}
		}
	}
}

// TestAbuseDeepNesting: 100,000 '[' (and '{"a":'), closed or not, on every
// framing and stdio: one -32700 naming the depth limit, and the connection
// goes on.
func TestAbuseDeepNesting(t *testing.T) {
	const depth = 100000
	msgs := []string{
		strings.Repeat("[", depth),
		strings.Repeat("[", depth) + strings.Repeat("]", depth),
		strings.Repeat(`{"a":`, depth),
		`{"jsonrpc":"2.0","method":"echo","params":` + strings.Repeat("[", depth) + `,"id":1}`,
	}
	check := func(t *testing.T, c *client) {
		for _, m := range msgs {
			data := expectError(t, c.call(m), "null", -32700)
			if data != `"nesting deeper than 1000"` {
				t.Errorf("error data %s", data)
			}
			expectResult(t, c.call(subtractCall), "2", "19")
		}
	}
	ts := startServer(t, nil)
	p := probeTCP(t, ts.addr)
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) { check(t, ts.dial(t, kind)) })
	}
	reportProbe(t, p, "100,000-deep nesting")
	t.Run("stdio", func(t *testing.T) {
		_, c := startStdio(t, nil, frame.NDJSON)
		check(t, c)
	})
}

// TestAbuseHugeBatch: batches of 100,000 members get one -32600 naming the
// batch limit on every framing and stdio; a batch whose responses would
// exceed MaxBatchResponse is cut to it.
func TestAbuseHugeBatch(t *testing.T) {
	const members = 100000
	huge := []string{
		"[" + strings.TrimSuffix(strings.Repeat("1,", members), ",") + "]",
		"[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","method":"update"},`, members), ",") + "]",
		"[" + strings.TrimSuffix(strings.Repeat(subtractCall+",", members/2), ",") + "]",
	}
	check := func(t *testing.T, c *client) {
		for _, m := range huge {
			data := expectError(t, c.call(m), "null", -32600)
			if data != `"batch has more than 1000 members"` {
				t.Errorf("error data %s", data)
			}
		}
		expectResult(t, c.call(subtractCall), "2", "19")
	}
	const maxResp = 64 << 10
	ts := serveWith(t, dispatch.Options{MaxBatchResponse: maxResp}, nil)
	p := probeTCP(t, ts.addr)
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) { check(t, ts.dial(t, kind)) })
	}
	t.Run("MaxBatchResponse", func(t *testing.T) {
		c := ts.dial(t, frame.NDJSON)
		var b strings.Builder
		b.WriteByte('[')
		for i := range 1000 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("z", 1000) + `"],"id":` + strconv.Itoa(i) + `}`)
		}
		b.WriteByte(']')
		out := c.call(b.String())
		var rs []response
		if err := json.Unmarshal(out, &rs); err != nil {
			t.Fatal(err)
		}
		results := 0
		for _, r := range rs {
			switch {
			case r.Error == nil:
				results++
			case r.Error.Code != -32000:
				t.Fatalf("member %s: error %d", r.ID, r.Error.Code)
			}
		}
		if len(rs) != 1000 || results == 0 || results > maxResp/1000 || len(out) > maxResp+1000*120 {
			t.Errorf("%d responses, %d results, %d bytes", len(rs), results, len(out))
		}
		t.Logf("1000 echo calls of 1 KB against MaxBatchResponse %d: %d results, %d bytes", maxResp, results, len(out))
	})
	reportProbe(t, p, "100,000-member batches")
	t.Run("stdio", func(t *testing.T) {
		_, c := startStdio(t, nil, frame.Len32)
		check(t, c)
	})
}

// TestAbuseSleepFlood: a client pipelining slow calls never has more than
// MaxInFlight of them running; with CallTimeout a flood of calls that would
// sleep a minute is answered -32003 in bounded time. Another client is
// served throughout.
func TestAbuseSleepFlood(t *testing.T) {
	const maxInFlight = 32
	var running, peak atomic.Int32
	gauge := func(e *dispatch.Engine) error {
		return e.Use(func(name string, next dispatch.Handler) dispatch.Handler {
			if name != "sleep" {
				return next
			}
			return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				defer running.Add(-1)
				return next.ServeRPC(ctx, params, dst)
			})
		})
	}
	flood := func(t *testing.T, timeout time.Duration, calls, ms int, wantCode int) {
		ts := serveWith(t, dispatch.Options{CallTimeout: timeout}, &Options{MaxInFlight: maxInFlight}, gauge)
		peak.Store(0)
		p := probeTCP(t, ts.addr)
		c := ts.dial(t, frame.NDJSON)
		var in bytes.Buffer
		for i := range calls {
			in.WriteString(`{"jsonrpc":"2.0","method":"sleep","params":[` + strconv.Itoa(ms) + `],"id":` + strconv.Itoa(i) + "}\n")
		}
		start := time.Now()
		go c.nc.Write(in.Bytes()) // ends when the server has read it all, or at the cleanup's close
		seen := make([]bool, calls)
		for range calls {
			r := decodeResponse(t, c.recv())
			id, _ := strconv.Atoi(string(r.ID))
			switch {
			case seen[id]:
				t.Fatalf("id %d answered twice", id)
			case wantCode == 0 && (r.Error != nil || string(r.Result) != strconv.Itoa(ms)):
				t.Fatalf("call %d: %+v (error %+v)", id, r, r.Error)
			case wantCode != 0 && (r.Error == nil || r.Error.Code != wantCode):
				t.Fatalf("call %d: %+v, want error %d", id, r, wantCode)
			}
			seen[id] = true
		}
		d := time.Since(start)
		reportProbe(t, p, fmt.Sprintf("a flood of %d sleep(%d ms) calls", calls, ms))
		t.Logf("%d sleep(%d ms) calls answered in %v; at most %d running at once (MaxInFlight %d)",
			calls, ms, d.Round(time.Millisecond), peak.Load(), maxInFlight)
		if peak.Load() > maxInFlight {
			t.Errorf("%d calls ran at once, MaxInFlight %d", peak.Load(), maxInFlight)
		}
	}
	// The short calls run without CallTimeout: under -race on a loaded
	// machine a 10 ms sleep can be kept from its core past 100 ms.
	t.Run("short", func(t *testing.T) { flood(t, 0, 1000, 10, 0) })
	t.Run("timed-out", func(t *testing.T) { flood(t, 100*time.Millisecond, 320, 60000, -32003) })
}

// TestAbuseGarbage: random garbage on every framing, auto-detected or set,
// over TCP and stdio: raw, and (so that it gets past the framer) as the
// bodies of well-framed frames. Whatever the server answers is well-formed
// JSON-RPC; a connection whose framing breaks is closed; the server keeps
// serving.
func TestAbuseGarbage(t *testing.T) {
	for _, kind := range append([]frame.Kind{frame.Auto}, framings...) {
		t.Run(kind.String(), func(t *testing.T) { testGarbage(t, kind, false) })
		if kind != frame.Auto {
			t.Run(kind.String()+"/framed", func(t *testing.T) { testGarbage(t, kind, true) })
		}
	}
	t.Run("stdio", func(t *testing.T) {
		_, c := startStdio(t, nil, frame.NDJSON)
		done := make(chan int)
		go func() { done <- checkAnswers(t, c) }()
		c.sendRaw(string(abuse.Garbage(rand.New(rand.NewPCG(7, 7)), 256<<10)))
		c.sendRaw("\n" + lastCall + "\n")
		t.Logf("stdio: %d answers", <-done)
	})
}

// lastCall ends the garbage sent over stdio: checkAnswers stops at its answer.
const lastCall = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"last"}`

func testGarbage(t *testing.T, kind frame.Kind, framed bool) {
	const conns, size = 8, 256 << 10
	ts := startServer(t, &Options{Framing: kind, ReadTimeout: time.Second})
	good := kind
	if good == frame.Auto {
		good = frame.NDJSON
	}
	p := probeFramed(t, ts.addr, good)
	var wg sync.WaitGroup
	answers := make([]int, conns)
	for i := range conns {
		c := ts.dial(t, kind)
		rng := rand.New(rand.NewPCG(uint64(kind), uint64(i)))
		junk := abuse.Garbage(rng, size)
		if framed {
			var b []byte
			for len(junk) > 0 {
				n := min(len(junk), 1+rng.IntN(2000))
				b, junk = frame.AppendFrame(b, kind, junk[:n]), junk[n:]
			}
			junk = b
		}
		wg.Go(func() { // write in random pieces until done or closed
			for b := junk; len(b) > 0; {
				n := min(len(b), 1+rng.IntN(4096))
				if _, err := c.nc.Write(b[:n]); err != nil {
					return
				}
				b = b[n:]
			}
			c.nc.(*net.TCPConn).CloseWrite()
		})
		wg.Go(func() { answers[i] = checkAnswers(t, c) })
	}
	wg.Wait()
	what := "garbage on " + kind.String()
	if framed {
		what = "framed " + what
	}
	reportProbe(t, p, what)
	t.Logf("%d connections of %d KiB of %s: %v answers", conns, size>>10, what, answers)
	expectResult(t, ts.dial(t, good).call(subtractCall), "2", "19")
}

// checkAnswers reads the responses of a garbage connection until it ends,
// checking that each is a well-formed response, and returns their number.
// It runs on its own goroutine: it reports with t.Errorf.
func checkAnswers(t *testing.T, c *client) int {
	n := 0
	for {
		if c.nc != nil {
			c.nc.SetReadDeadline(time.Now().Add(testTimeout))
		}
		msg, err := c.fr.Next()
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), isReset(err), errors.Is(err, frame.ErrBroken):
			return n // the server closed a connection whose framing broke
		default:
			var tl *frame.TooLargeError
			if !errors.As(err, &tl) {
				t.Errorf("reading answers: %v", err)
				return n
			}
			continue
		}
		n++
		if err := wellFormed(msg); err != nil {
			t.Errorf("answer %q: %v", msg, err)
			return n
		}
		if string(msg) == `{"jsonrpc":"2.0","id":"last","result":19}` {
			return n
		}
	}
}

// wellFormed checks a response or batch of responses: valid JSON, version
// 2.0, exactly one of result and error.
func wellFormed(msg []byte) error {
	var rs []map[string]json.RawMessage
	if len(msg) > 0 && msg[0] == '[' {
		if err := json.Unmarshal(msg, &rs); err != nil {
			return err
		}
	} else {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(msg, &r); err != nil {
			return err
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		_, hasResult := r["result"]
		_, hasError := r["error"]
		if string(r["jsonrpc"]) != `"2.0"` || hasResult == hasError || r["id"] == nil {
			return errors.New("malformed envelope")
		}
	}
	return nil
}
