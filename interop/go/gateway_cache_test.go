package interop

// NOTE: the gateway's answer cache and eth_subscribe through the real
// `jetrpc proxy` binary, in front of upstreams nobody here wrote: a
// go-ethereum rpc server (a counting test service) and a geth --dev node.
// What reaches an upstream is counted on the upstream's side: the test
// service counts its own calls, and in front of geth a counting HTTP
// reverse proxy (upstreamCounter) records the method and params of every
// call it passes on, so "served from the cache" means "the upstream never
// saw it". The gateway's finality follower and probes also pass the
// counter; the assertions count only the calls under test.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetrpc/jetrpc/internal/natstest"
)

// cacheService is the upstream of the cache tests: every call counted.
type cacheService struct {
	echoes atomic.Int64
	fails  atomic.Int64
}

// Echo returns its argument (cacheable under --cache test_echo=TTL).
func (s *cacheService) Echo(v json.RawMessage) json.RawMessage { s.echoes.Add(1); return v }

// Fail always fails: an error, which the gateway must never cache.
func (s *cacheService) Fail(v json.RawMessage) (json.RawMessage, error) {
	s.fails.Add(1)
	return nil, errors.New("failed on purpose")
}

// startCacheUpstream serves svc as "test" over HTTP with go-ethereum's rpc
// server on loopback, stopped when t ends.
func startCacheUpstream(t *testing.T, svc *cacheService) string {
	t.Helper()
	srv := rpc.NewServer()
	if err := srv.RegisterName("test", svc); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Stop() })
	return hs.URL
}

// postCache sends body to the proxy's HTTP listener and returns the answer.
func postCache(t *testing.T, addr, body string) string {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGatewayCacheRules: with --cache NAME=TTL, a repeated call is answered
// from the cache (the upstream counts one call), with each client's id
// byte for byte, in single calls and in batches; other params are another
// entry; errors are never cached; a short TTL expires.
func TestGatewayCacheRules(t *testing.T) {
	svc := &cacheService{}
	up := startCacheUpstream(t, svc)
	p := startCommand(t, "proxy", "--upstream", up, "--probe", "",
		"--cache", "test_echo=1h", "--cache", "test_fail=1h")
	want := func(in, out string) {
		t.Helper()
		if got := postCache(t, p.HTTP, in); got != out {
			t.Fatalf("%s\n got %s\nwant %s", in, got, out)
		}
	}
	const params = `[{"block":"0x20","x":[1,"\u00e9",null]}]`
	const result = `{"block":"0x20","x":[1,"\u00e9",null]}`
	ids := []string{`1`, `9007199254740993`, `123456789012345678901234567890`, `1e3`, `-0`, `"a\u0041\n"`, `"😀"`, `null`, `0.5`, `"x"`}
	for _, id := range ids {
		want(`{"jsonrpc":"2.0","id":`+id+`,"method":"test_echo","params":`+params+`}`,
			`{"jsonrpc":"2.0","id":`+id+`,"result":`+result+`}`)
	}
	if n := svc.echoes.Load(); n != 1 {
		t.Fatalf("%d calls of one cached call reached the upstream, want 1", n)
	}
	// Other params: another entry, one more upstream call, then hits.
	for _, id := range ids[:3] {
		want(`{"jsonrpc":"2.0","id":`+id+`,"method":"test_echo","params":[2]}`, `{"jsonrpc":"2.0","id":`+id+`,"result":2}`)
	}
	if n := svc.echoes.Load(); n != 2 {
		t.Fatalf("the upstream got %d calls, want 2", n)
	}
	// A batch of hits: answered whole, nothing forwarded.
	want(`[{"jsonrpc":"2.0","id":"b1","method":"test_echo","params":[2]},{"jsonrpc":"2.0","id":7,"method":"test_echo","params":`+params+`}]`,
		`[{"jsonrpc":"2.0","id":"b1","result":2},{"jsonrpc":"2.0","id":7,"result":`+result+`}]`)
	if n := svc.echoes.Load(); n != 2 {
		t.Fatalf("a batch of cached calls reached the upstream: %d calls, want 2", n)
	}
	// Over TCP (NDJSON), pipelined: hits are answered on the connection's
	// reading goroutine (dispatch.InlineForwarder), each with its id.
	conn, err := net.Dial("tcp", p.TCP)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(callTimeout))
	var msgs strings.Builder
	for _, id := range ids {
		msgs.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"test_echo","params":[2]}` + "\n")
	}
	if _, err := conn.Write([]byte(msgs.String())); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	for _, id := range ids {
		line, err := rd.ReadString('\n')
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":2}` + "\n"; err != nil || line != want {
			t.Fatalf("over TCP: %q %v, want %q", line, err, want)
		}
	}
	if n := svc.echoes.Load(); n != 2 {
		t.Fatalf("cached calls over TCP reached the upstream: %d calls, want 2", n)
	}
	// Errors pass through unchanged and are never kept.
	for i, id := range ids[:4] {
		got := postCache(t, p.HTTP, `{"jsonrpc":"2.0","id":`+id+`,"method":"test_fail","params":[1]}`)
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32000,"message":"failed on purpose"`) {
			t.Fatalf("test_fail: %s", got)
		}
		if n := svc.fails.Load(); n != int64(i+1) {
			t.Fatalf("after %d failing calls the upstream counted %d: an error was cached", i+1, n)
		}
	}
}

// TestGatewayCacheTTL: an entry expires after its TTL and the next call
// reaches the upstream again.
func TestGatewayCacheTTL(t *testing.T) {
	svc := &cacheService{}
	up := startCacheUpstream(t, svc)
	p := startCommand(t, "proxy", "--upstream", up, "--probe", "", "--cache", "test_*=300ms")
	call := `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":[3]}`
	postCache(t, p.HTTP, call)
	postCache(t, p.HTTP, call)
	if n := svc.echoes.Load(); n != 1 {
		t.Fatalf("the upstream got %d calls, want 1", n)
	}
	time.Sleep(400 * time.Millisecond)
	if got := postCache(t, p.HTTP, call); got != `{"jsonrpc":"2.0","id":1,"result":3}` {
		t.Fatalf("after the TTL: %s", got)
	}
	if n := svc.echoes.Load(); n != 2 {
		t.Fatalf("after the TTL the upstream got %d calls, want 2", n)
	}
}

// TestGatewayCacheNATS: two `jetrpc proxy` replicas sharing one NATS
// JetStream cache: an answer one fetched is a hit on the other.
func TestGatewayCacheNATS(t *testing.T) {
	natsURL := natstest.Start(t)
	svc := &cacheService{}
	up := startCacheUpstream(t, svc)
	args := []string{"--upstream", up, "--probe", "", "--cache", "test_echo=1h", "--cache-nats", natsURL}
	a := startCommand(t, "proxy", args...)
	b := startCommand(t, "proxy", args...)

	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// stored waits until the bucket holds n entries (a store is a publish
	// that waits for nothing).
	stored := func(n uint64) {
		t.Helper()
		deadline := time.Now().Add(callTimeout)
		for {
			kv, err := js.KeyValue(ctx(t), "jetrpc_cache")
			if err == nil {
				if st, err := kv.Status(ctx(t)); err == nil && st.Values() >= n {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the NATS bucket jetrpc_cache never held %d entries", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	for i, pair := range [][2]*server{{a, b}, {b, a}} {
		params := `[{"n":` + strconv.Itoa(i) + `}]`
		first, second := pair[0], pair[1]
		if got := postCache(t, first.HTTP, `{"jsonrpc":"2.0","id":"first","method":"test_echo","params":`+params+`}`); got != `{"jsonrpc":"2.0","id":"first","result":{"n":`+strconv.Itoa(i)+`}}` {
			t.Fatalf("first replica: %s", got)
		}
		if n := svc.echoes.Load(); n != int64(i+1) {
			t.Fatalf("the upstream got %d calls, want %d", n, i+1)
		}
		stored(uint64(i + 1))
		for _, id := range []string{`9007199254740993`, `"other"`, `null`} {
			if got := postCache(t, second.HTTP, `{"jsonrpc":"2.0","id":`+id+`,"method":"test_echo","params":`+params+`}`); got != `{"jsonrpc":"2.0","id":`+id+`,"result":{"n":`+strconv.Itoa(i)+`}}` {
				t.Fatalf("second replica: %s", got)
			}
		}
		if n := svc.echoes.Load(); n != int64(i+1) {
			t.Fatalf("the other replica's hits reached the upstream: %d calls, want %d", n, i+1)
		}
	}
}

// upstreamCounter is a counting HTTP reverse proxy in front of an upstream:
// it records "method params" of every call (single or in a batch) it
// passes on.
type upstreamCounter struct {
	mu    sync.Mutex
	calls map[string]int
	URL   string
}

func newUpstreamCounter(t *testing.T, target string) *upstreamCounter {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &upstreamCounter{calls: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type msg struct {
			Method string
			Params json.RawMessage
		}
		var batch []msg
		if err := json.Unmarshal(body, &batch); err != nil {
			var m msg
			if json.Unmarshal(body, &m) == nil {
				batch = []msg{m}
			}
		}
		c.mu.Lock()
		for _, m := range batch {
			c.calls[m.Method+" "+compactJSON(m.Params)]++
		}
		c.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r.ContentLength = int64(len(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	c.URL = hs.URL
	return c
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// count is how many times method with params (any spacing) went upstream.
func (c *upstreamCounter) count(method, params string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method+" "+compactJSON(json.RawMessage(params))]
}

// TestGatewayCacheGethDev: `jetrpc proxy --cache-policy ethereum` in front
// of a geth --dev node: calls by hash and by a finalized block number are
// served from the cache on repeat, with the node's answers; calls for
// blocks above finalized, and by tag, reach the node every time.
func TestGatewayCacheGethDev(t *testing.T) {
	g := startGethDev(t)
	// A transaction in block n (sealed at once), then blocks to 33: block
	// 32 and everything below it are final.
	from := firstAccount(t, g)
	var tx string
	if err := json.Unmarshal(g.must(t, "eth_sendTransaction", `[{"from":"`+from+`","to":"0x00000000000000000000000000000000000000bb","value":"0x1"}]`), &tx); err != nil {
		t.Fatal(err)
	}
	var receipt []byte
	deadline := time.Now().Add(callTimeout)
	for {
		var err error
		receipt, err = g.call(context.Background(), receipt[:0], "eth_getTransactionReceipt", []byte(`["`+tx+`"]`))
		if err == nil && string(receipt) != "null" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receipt for %s: %s %v", tx, receipt, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var r struct{ BlockNumber, BlockHash string }
	if err := json.Unmarshal(receipt, &r); err != nil || r.BlockHash == "" {
		t.Fatalf("receipt %s: %v", receipt, err)
	}
	g.mine(t, 33)
	if f := finalizedOf(t, g); f != 32 {
		t.Fatalf("geth --dev says finalized %d, want 32", f)
	}

	counter := newUpstreamCounter(t, g.HTTP)
	p := startCommand(t, "proxy", "--upstream", counter.URL, "--probe", "", "--cache-policy", "ethereum")
	// via calls through the proxy and checks the answer is the node's.
	via := func(method, params string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":"q","method":"` + method + `","params":` + params + `}`
		got := postCache(t, p.HTTP, body)
		want := `{"jsonrpc":"2.0","id":"q","result":` + string(g.must(t, method, params)) + `}`
		if got != want {
			t.Fatalf("%s %s through the proxy:\n got %.300s\nwant %.300s", method, params, got, want)
		}
	}
	// The gateway learns the finalized block from its first poll: wait
	// until a finalized block's second call stays in the gateway.
	deadline = time.Now().Add(callTimeout)
	for {
		postCache(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",false]}`)
		before := counter.count("eth_getBlockByNumber", `["0x1",false]`)
		postCache(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",false]}`)
		if counter.count("eth_getBlockByNumber", `["0x1",false]`) == before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway never cached a finalized block within %v", callTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}

	cached := []struct{ method, params string }{
		{"eth_chainId", `[]`},
		{"net_version", `[]`},
		{"eth_getBlockByHash", `["` + r.BlockHash + `",false]`},
		{"eth_getTransactionReceipt", `["` + tx + `"]`},
		{"eth_getTransactionByHash", `["` + tx + `"]`},
		{"eth_getBlockByNumber", `["` + r.BlockNumber + `",true]`},
		{"eth_getBlockByNumber", `["0x20",false]`},
		{"eth_getBalance", `["` + from + `","0x20"]`},
		{"eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x20"}]`},
		{"eth_getBlockReceipts", `["` + r.BlockNumber + `"]`},
	}
	notCached := []struct{ method, params string }{
		{"eth_getBlockByNumber", `["0x21",false]`}, // above finalized
		{"eth_getBlockByNumber", `["latest",false]`},
		{"eth_getBalance", `["` + from + `","latest"]`},
		{"eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x21"}]`},
		{"eth_blockNumber", `[]`},
	}
	for _, c := range cached {
		for range 3 {
			via(c.method, c.params)
		}
		if n := counter.count(c.method, c.params); n != 1 {
			t.Errorf("%s %s: %d of 3 calls reached geth, want 1", c.method, c.params, n)
		}
	}
	for _, c := range notCached {
		for range 3 {
			postCache(t, p.HTTP, `{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":`+c.params+`}`)
		}
		if n := counter.count(c.method, c.params); n != 3 {
			t.Errorf("%s %s: %d of 3 calls reached geth, want 3 (not cacheable)", c.method, c.params, n)
		}
	}
}

// TestGatewayNewHeads: eth_subscribe newHeads from a geth --dev node
// through the gateway over WebSocket: every new head in order as blocks
// are sealed; killing geth ends the subscription with an error the client
// sees, and the client's connection stays up.
func TestGatewayNewHeads(t *testing.T) {
	g := startGethDev(t)
	p := startCommand(t, "proxy", "--upstream", g.WS, "--probe", "", "--timeout", "3s")
	c, err := rpc.DialWebsocket(ctx(t), "ws://"+p.HTTP+"/ws", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type head struct {
		Number, Hash, ParentHash string
	}
	ch := make(chan head, 100)
	sub, err := c.Subscribe(ctx(t), "eth", ch, "newHeads")
	if err != nil {
		t.Fatal(err)
	}
	start := g.head(t)
	var prev string
	for i := uint64(1); i <= 20; i++ {
		g.mine(t, start+i)
		select {
		case h := <-ch:
			n, err := strconv.ParseUint(strings.TrimPrefix(h.Number, "0x"), 16, 64)
			if err != nil || n != start+i {
				t.Fatalf("head %d: got %+v", start+i, h)
			}
			if prev != "" && h.ParentHash != prev {
				t.Fatalf("head %d: parent %s, want %s", n, h.ParentHash, prev)
			}
			prev = h.Hash
		case err := <-sub.Err():
			t.Fatalf("the subscription ended at head %d: %v", start+i, err)
		case <-time.After(callTimeout):
			t.Fatalf("head %d never came", start+i)
		}
	}
	select {
	case h := <-ch:
		t.Fatalf("a head nobody mined: %+v", h)
	case <-time.After(50 * time.Millisecond):
	}

	// A second client, on a raw WebSocket, to see the last notification's
	// bytes: the error object docs/gateway.md promises.
	raw, _, err := websocket.DefaultDialer.Dial("ws://"+p.HTTP+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.SetReadDeadline(time.Now().Add(callTimeout))
	if err := raw.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	_, subAnswer, err := raw.ReadMessage()
	if err != nil || !strings.HasPrefix(string(subAnswer), `{"jsonrpc":"2.0","id":1,"result":"0x`) {
		t.Fatalf("eth_subscribe on the raw connection: %s %v", subAnswer, err)
	}
	var rawSub struct{ Result string }
	_ = json.Unmarshal(subAnswer, &rawSub)

	// geth killed: the subscription ends with an error the client sees.
	if err := g.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-sub.Err():
		if err == nil {
			t.Fatal("the subscription ended without an error")
		}
		t.Logf("the client saw: %v", err)
	case <-time.After(callTimeout):
		t.Fatal("the subscription did not end when geth was killed")
	}
	for {
		_, m, err := raw.ReadMessage()
		if err != nil {
			t.Fatalf("the raw client saw no error notification: %v", err)
		}
		if strings.Contains(string(m), `"result"`) {
			continue // a head mined before the kill
		}
		want := `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"` + rawSub.Result + `","error":{"code":-32000,"message":"Upstream gone"`
		if !strings.HasPrefix(string(m), want) {
			t.Fatalf("the last notification:\n got %s\nwant %s...", m, want)
		}
		break
	}
	if err := raw.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}`)); err != nil {
		t.Fatal(err)
	}
	if _, m, err := raw.ReadMessage(); err != nil || !strings.HasPrefix(string(m), `{"jsonrpc":"2.0","id":2,"error":{"code":-3200`) {
		t.Fatalf("a call on the raw connection after geth went: %s %v", m, err)
	}

	// The client's connection is still up: a call over it is answered
	// with the gateway's error.
	var out string
	err = c.CallContext(ctx(t), &out, "eth_chainId")
	var re rpc.Error
	if !errors.As(err, &re) || (re.ErrorCode() != -32000 && re.ErrorCode() != -32003) {
		t.Fatalf("a call after geth went: %v, want the gateway's -32000 over the same connection", err)
	}
}
