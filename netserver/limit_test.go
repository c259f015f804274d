package netserver

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// rateAuth: alice and bob, 5 calls per second each, 5 at once.
func rateOptions(t *testing.T) *Options {
	return &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t), RateLimit: 5, RateBurst: 5})}
}

// TestRateLimitTCP: alice floods and gets -32005 while bob, on another
// connection, is served; a batch counts as its members.
func TestRateLimitTCP(t *testing.T) {
	ts := startServer(t, rateOptions(t), authSetup(t)...)
	alice, bob := ts.dial(t, frame.NDJSON), ts.dial(t, frame.NDJSON)
	expectResult(t, alice.call(authCall(aliceToken)), "1", `{"name":"alice","scheme":"bearer"}`)
	expectResult(t, bob.call(authCall(bobToken)), "1", `{"name":"bob","scheme":"bearer"}`)
	limited := 0
	for i := range 20 {
		r := decodeResponse(t, alice.call(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"sum","params":[1]}`))
		if r.Error != nil {
			if r.Error.Code != -32005 || r.Error.Message != "Limit exceeded" || string(r.ID) != strconv.Itoa(i) {
				t.Fatalf("call %d: %+v", i, r.Error)
			}
			limited++
		}
		if i%4 == 0 { // bob calls now and then, within his rate
			expectResult(t, bob.call(`{"jsonrpc":"2.0","id":7,"method":"sum","params":[1,2]}`), "7", "3")
		}
	}
	if limited < 10 {
		t.Errorf("%d of 20 flooding calls limited, want most", limited)
	}
	// A batch of 6 costs 6: more than the burst, every call refused.
	time.Sleep(1100 * time.Millisecond) // the bucket fills again
	batch := `[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},`, 5) +
		`{"jsonrpc":"2.0","method":"update"}]`
	out := string(bob.call(batch))
	if strings.Count(out, `"code":-32005`) != 5 || strings.Contains(out, "result") {
		t.Errorf("batch over the burst: %s", out)
	}
	batch = `[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},`, 4) +
		`{"jsonrpc":"2.0","method":"update"}]`
	if out := string(bob.call(batch)); strings.Count(out, `"result":1`) != 4 {
		t.Errorf("batch of the burst: %s", out)
	}
}

// TestRateLimitHTTP: over HTTP the flood gets 429 with Retry-After while
// another identity is served; over WebSocket -32005.
func TestRateLimitHTTP(t *testing.T) {
	for _, std := range []bool{false, true} {
		url := startHTTPAuth(t, std, rateOptions(t), authSetup(t)...)
		limited := 0
		for range 20 {
			resp, body := httpDo(t, url, wsSubtract, "Authorization", "Bearer "+aliceToken)
			switch resp.StatusCode {
			case http.StatusTooManyRequests:
				if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
					t.Errorf("std %v: Retry-After %q", std, resp.Header.Get("Retry-After"))
				}
				limited++
			case http.StatusOK:
			default:
				t.Errorf("std %v: %d %s", std, resp.StatusCode, body)
			}
		}
		if limited < 10 {
			t.Errorf("std %v: %d of 20 limited", std, limited)
		}
		if resp, body := httpDo(t, url, wsSubtract, "Authorization", "Bearer "+bobToken); resp.StatusCode != 200 {
			t.Errorf("std %v: bob got %d %s", std, resp.StatusCode, body)
		}
	}
}

func TestRateLimitWS(t *testing.T) {
	_, url := startWS(t, rateOptions(t), authSetup(t)...)
	var wg sync.WaitGroup
	counts := map[string]int{}
	var mu sync.Mutex
	for _, who := range []string{aliceToken, bobToken} {
		d := websocket.Dialer{HandshakeTimeout: testTimeout}
		c, _, err := d.Dial(url, http.Header{"Authorization": {"Bearer " + who}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		n := 20
		if who == bobToken {
			n = 4
		}
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(testTimeout))
			for range n {
				if err := c.WriteMessage(websocket.TextMessage, []byte(wsSubtract)); err != nil {
					t.Error(err)
					return
				}
				_, b, err := c.ReadMessage()
				if err != nil {
					t.Error(err)
					return
				}
				if strings.Contains(string(b), `"code":-32005`) {
					mu.Lock()
					counts[who]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if counts[aliceToken] < 10 || counts[bobToken] != 0 {
		t.Errorf("limited calls: alice %d of 20, bob %d of 4", counts[aliceToken], counts[bobToken])
	}
}

// TestMaxConnsPerIP: a third connection from one address is closed (TCP)
// or answered 429 (HTTP), and one closing makes room.
func TestMaxConnsPerIP(t *testing.T) {
	warmFasthttp() // startWS below; startServer counts the goroutines first
	ts := startServer(t, &Options{Guard: guard.New(&guard.Options{MaxConnsPerIP: 2})})
	a, b := ts.dial(t, frame.NDJSON), ts.dial(t, frame.NDJSON)
	expectResult(t, a.call(wsSubtract), "1", "19")
	expectResult(t, b.call(wsSubtract), "1", "19")
	c := ts.dial(t, frame.NDJSON)
	c.send(wsSubtract)
	c.expectClosed()
	a.nc.Close()
	waitFor(t, "the closed connection to count off", func() bool { return ts.openConns() == 1 })
	d := ts.dial(t, frame.NDJSON)
	expectResult(t, d.call(wsSubtract), "1", "19")

	_, wsURL := startWS(t, &Options{Guard: guard.New(&guard.Options{MaxConnsPerIP: 2})})
	host := strings.TrimSuffix(strings.TrimPrefix(wsURL, "ws://"), "/ws")
	var conns []net.Conn
	for range 3 {
		nc, err := net.DialTimeout("tcp", host, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		conns = append(conns, nc)
	}
	for i, nc := range conns {
		nc.SetDeadline(time.Now().Add(testTimeout))
		req := "POST / HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: " + strconv.Itoa(len(wsSubtract)) + "\r\n\r\n" + wsSubtract
		if _, err := nc.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		n, _ := nc.Read(buf)
		status := strings.SplitN(string(buf[:n]), "\r\n", 2)[0]
		want := "HTTP/1.1 200 OK"
		if i == 2 {
			want = "HTTP/1.1 429 Too Many Requests"
			if !strings.Contains(string(buf[:n]), "Retry-After: 1") {
				t.Errorf("429 without Retry-After: %q", buf[:n])
			}
		}
		if status != want {
			t.Errorf("connection %d: %q, want %q", i, status, want)
		}
	}
}

// TestRateLimitAuthFailures: refused credentials are charged to the
// address's bucket, so guessing turns into 429s; a good credential from
// the same address still gets its identity's own bucket.
func TestRateLimitAuthFailures(t *testing.T) {
	for _, std := range []bool{false, true} {
		url := startHTTPAuth(t, std, rateOptions(t), authSetup(t)...)
		statuses := map[int]int{}
		for range 20 {
			resp, _ := httpDo(t, url, wsSubtract, "Authorization", "Bearer guess-0123456789abcdef")
			statuses[resp.StatusCode]++
		}
		if statuses[http.StatusUnauthorized] < 1 || statuses[http.StatusTooManyRequests] < 10 {
			t.Errorf("std %v: statuses %v, want 401s then mostly 429", std, statuses)
		}
		if resp, body := httpDo(t, url, wsSubtract, "Authorization", "Bearer "+bobToken); resp.StatusCode != 200 {
			t.Errorf("std %v: bob got %d %s", std, resp.StatusCode, body)
		}
	}
}

// TestRateLimitAuthFailuresTCP: each rpc.authenticate costs its address a
// call, so guessing over new connections turns into -32005 after the
// burst.
func TestRateLimitAuthFailuresTCP(t *testing.T) {
	ts := startServer(t, rateOptions(t), authSetup(t)...)
	codes := map[int]int{}
	for range 10 {
		c := ts.dial(t, frame.NDJSON)
		r := decodeResponse(t, c.call(authCall("guess-0123456789abcdef")))
		if r.Error == nil {
			t.Fatalf("a guess was accepted: %s", r.Result)
		}
		codes[r.Error.Code]++
		c.expectClosed()
	}
	if codes[-32006] != 5 || codes[-32005] != 5 {
		t.Errorf("codes %v, want 5 of -32006 (the burst) then -32005", codes)
	}
}

// TestClientsShared: two servers sharing one Guard count a client's calls
// together: alice's burst spent over TCP is spent over HTTP too.
func TestClientsShared(t *testing.T) {
	opts := rateOptions(t)
	url := startHTTPAuth(t, false, opts, authSetup(t)...) // its goroutine check, run last, covers both servers
	ts := serveOn(t, newServer(t, opts, authSetup(t)...))
	c := ts.dial(t, frame.NDJSON)
	expectResult(t, c.call(authCall(aliceToken)), "1", `{"name":"alice","scheme":"bearer"}`)
	for range 5 {
		c.call(wsSubtract)
	}
	if resp, body := httpDo(t, url, wsSubtract, "Authorization", "Bearer "+aliceToken); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("HTTP after the burst went over TCP: %d %s", resp.StatusCode, body)
	}
	if n := opts.Guard.Clients(); n < 1 || n > 3 {
		t.Errorf("Clients = %d", n)
	}
}
