package nethttp_test

// NOTE: the abuse tests of abuse_test.go, over HTTP. A well-behaved client
// (probeHTTP, on a keep-alive connection of its own) keeps calling while
// others misbehave; its answers are checked and its latency logged.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/abuse"
)

// probeHTTP starts a well-behaved client: subtract calls one after another
// on its own keep-alive connection, each answer checked byte for byte.
func probeHTTP(t *testing.T, h *httpTarget) *abuse.Prober {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return abuse.Start(func(i int) error {
		id := strconv.Itoa(i)
		body := `{"jsonrpc":"2.0","method":"subtract","params":[` + id + `,1],"id":` + id + `}`
		resp, err := client.Post(h.url, "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":` + strconv.Itoa(i-1) + `}`; resp.StatusCode != 200 || string(got) != want {
			return fmt.Errorf("got %d %s, want 200 %s", resp.StatusCode, got, want)
		}
		return nil
	}, time.Millisecond)
}

func reportHTTPProbe(t *testing.T, p *abuse.Prober, during string) {
	t.Helper()
	st, err := p.Stop()
	if err != nil {
		t.Errorf("well-behaved client during %s: %v", during, err)
	}
	t.Logf("well-behaved client during %s: %v", during, st)
}

// hostOf returns the host:port of h.
func hostOf(h *httpTarget) string {
	return strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/")
}

func dialHTTP(t *testing.T, h *httpTarget) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", hostOf(h), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// TestHTTPAbuseSlowloris: requests sent a byte every 100 ms, stalling in the
// header or in the body, are cut off by ReadTimeout while another client is
// served.
func TestHTTPAbuseSlowloris(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	h := startFastHTTP(t, &netserver.Options{ReadTimeout: readTimeout})
	p := probeHTTP(t, h)
	header := "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(httpSubtract)) + "\r\n\r\n"
	reqs := map[string]string{"header": header, "body": header + httpSubtract}
	cut := map[string]time.Duration{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, req := range reqs {
		nc := dialHTTP(t, h)
		if name == "body" {
			nc.Write([]byte(header)) // the header at once, then the body slowly
			req = httpSubtract
		}
		wg.Go(func() {
			d := trickle(nc, []byte(req))
			mu.Lock()
			cut[name] = d
			mu.Unlock()
		})
	}
	wg.Wait()
	reportHTTPProbe(t, p, "HTTP slowloris")
	for name, d := range cut {
		t.Logf("HTTP slowloris stalling in the %s cut off after %v", name, d.Round(time.Millisecond))
		if d < readTimeout-50*time.Millisecond || d > readTimeout+2*time.Second {
			t.Errorf("slowloris in the %s cut off after %v, ReadTimeout %v", name, d, readTimeout)
		}
	}
}

// trickle sends msg but its last byte, a byte every 100 ms, and returns how
// long the server took to close the connection.
func trickle(nc net.Conn, msg []byte) time.Duration {
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
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

// TestHTTPAbuseLimits: 100,000-deep nesting gets its one -32700 and
// 100,000-member batches their one -32600 over both HTTP servers.
func TestHTTPAbuseLimits(t *testing.T) {
	for name, start := range map[string]httpStart{"fasthttp": startFastHTTP, "net/http": startStdHTTP} {
		t.Run(name, func(t *testing.T) {
			h := start(t, nil)
			p := probeHTTP(t, h)
			f := func(msg, data string) {
				t.Helper()
				r := h.post(msg)
				want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"` + data + `"}}`
				if strings.HasPrefix(data, "nesting") {
					want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"` + data + `"}}`
				}
				if r.status != http.StatusOK || string(r.body) != want {
					t.Errorf("got %d %.200s, want %s", r.status, r.body, want)
				}
			}
			f(strings.Repeat("[", 100000), "nesting deeper than 1000")
			f(strings.Repeat(`{"a":`, 100000), "nesting deeper than 1000")
			f("["+strings.TrimSuffix(strings.Repeat(httpSubtract+",", 50000), ",")+"]", "batch has more than 1000 members")
			f("["+strings.TrimSuffix(strings.Repeat("1,", 100000), ",")+"]", "batch has more than 1000 members")
			reportHTTPProbe(t, p, name+": deep nesting and huge batches")
		})
	}
}

// TestHTTPAbuseGarbage: random bytes on raw connections to the HTTP port
// are refused (400) and closed; random bodies in POSTs get well-formed
// JSON-RPC errors; the server keeps serving.
func TestHTTPAbuseGarbage(t *testing.T) {
	h := startFastHTTP(t, &netserver.Options{ReadTimeout: time.Second})
	p := probeHTTP(t, h)
	var wg sync.WaitGroup
	for i := range 8 {
		nc := dialHTTP(t, h)
		junk := abuse.Garbage(rand.New(rand.NewPCG(1, uint64(i))), 64<<10)
		wg.Go(func() {
			nc.SetDeadline(time.Now().Add(10 * time.Second))
			go nc.Write(junk) // fails once the server closes
			io.Copy(io.Discard, nc)
		})
	}
	rng := rand.New(rand.NewPCG(2, 2))
	answered := 0
	for range 200 {
		r := h.post(string(abuse.Garbage(rng, 1+rng.IntN(4096))))
		if r.status == http.StatusNoContent {
			continue
		}
		if err := wellFormedHTTP(r.body); r.status != http.StatusOK || err != nil {
			t.Fatalf("got %d %q: %v", r.status, r.body, err)
		}
		answered++
	}
	wg.Wait()
	reportHTTPProbe(t, p, "HTTP garbage")
	t.Logf("200 garbage bodies: %d answered with errors", answered)
	h.post(httpSubtract).wantCall(t, `"result":19`)
}

func wellFormedHTTP(body []byte) error {
	var rs []map[string]json.RawMessage
	if bytes.HasPrefix(body, []byte("[")) {
		if err := json.Unmarshal(body, &rs); err != nil {
			return err
		}
	} else {
		var r map[string]json.RawMessage
		if err := json.Unmarshal(body, &r); err != nil {
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

// TestHTTPAbuseMaxConns: over MaxConns a connection is refused (503, then
// closed) while the connections within it are served.
func TestHTTPAbuseMaxConns(t *testing.T) {
	const maxConns = 5
	h := startFastHTTP(t, &netserver.Options{MaxConns: maxConns})
	p := probeHTTP(t, h)
	if !p.Await(1, 10*time.Second) { // its connection is open
		t.Fatal("the well-behaved client made no call")
	}
	req := "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(httpSubtract)) + "\r\n\r\n" + httpSubtract
	var held []net.Conn
	for range maxConns - 1 { // with the prober's: maxConns
		nc := dialHTTP(t, h)
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		nc.Write([]byte(req))
		buf := make([]byte, 4096)
		if n, err := nc.Read(buf); err != nil || !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200")) {
			t.Fatalf("a connection within MaxConns: %q %v", buf[:n], err)
		}
		held = append(held, nc)
	}
	over := dialHTTP(t, h)
	over.SetDeadline(time.Now().Add(10 * time.Second))
	over.Write([]byte(req))
	b, _ := io.ReadAll(over)
	if !bytes.HasPrefix(b, []byte("HTTP/1.1 503")) {
		t.Errorf("a connection over MaxConns got %q, want 503 and close", b)
	}
	reportHTTPProbe(t, p, "HTTP connections at MaxConns")
	for _, nc := range held {
		nc.Close()
	}
}

// TestHTTPAbuseNeverReadingClient: a client pipelining requests without
// reading the responses is dropped after WriteTimeout; others are served.
func TestHTTPAbuseNeverReadingClient(t *testing.T) {
	h := startFastHTTP(t, &netserver.Options{WriteTimeout: 200 * time.Millisecond})
	p := probeHTTP(t, h)
	nc := dialHTTP(t, h)
	body := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("y", 8000) + `"],"id":1}`
	req := []byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	sent := 0
	for ; sent < (256<<20)/len(req); sent++ {
		if _, err := nc.Write(req); err != nil {
			break
		}
	}
	if sent == (256<<20)/len(req) {
		t.Fatal("the server never stopped reading")
	}
	reportHTTPProbe(t, p, "an HTTP client that never reads")
	t.Logf("never-reading HTTP client dropped after %d requests (%d KiB), %v",
		sent, sent*len(req)>>10, time.Since(start).Round(time.Millisecond))
}
