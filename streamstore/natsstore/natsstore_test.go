package natsstore_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

func newStore(t *testing.T, url string) *natsstore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := natsstore.Connect(ctx, url, &natsstore.Options{Memory: true, MaxEvents: 5})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func replay(t *testing.T, s *natsstore.Store, key streamstore.Key, after uint64) (string, bool) {
	t.Helper()
	var b strings.Builder
	found, err := s.Replay(context.Background(), key, after, func(ev streamstore.Event) error {
		b.Write(ev.Data)
		if ev.Final {
			b.WriteString("|final")
		}
		return nil
	})
	require.NoError(t, err)
	return b.String(), found
}

func TestStore(t *testing.T) {
	url := natstest.Start(t)
	s, other := newStore(t, url), newStore(t, url) // two replicas' connections
	ctx := context.Background()
	a := streamstore.Key{Session: "r1.AAAA", Stream: 0xab}
	b := streamstore.Key{Session: "r1.BBBB", Stream: 0xab}
	odd := streamstore.Key{Session: "a b.c.d", Stream: 1} // not an id of SessionIDs: encoded
	for i, ev := range []string{"e1;", "e2;", "e3;"} {
		require.NoError(t, s.Append(ctx, a, streamstore.Event{Seq: uint64(i + 1), Data: []byte(ev), Final: i == 2}))
	}
	require.NoError(t, s.Append(ctx, a, streamstore.Event{Seq: 3, Data: []byte("e3;"), Final: true})) // a retry: deduplicated
	require.NoError(t, s.Append(ctx, b, streamstore.Event{Seq: 1, Data: []byte("b1;")}))
	require.NoError(t, s.Append(ctx, odd, streamstore.Event{Seq: 1, Data: []byte("o1;")}))
	f := func(key streamstore.Key, after uint64, want string, wantFound bool) {
		t.Helper()
		got, found := replay(t, other, key, after)
		require.Equal(t, wantFound, found)
		require.Equal(t, want, got)
	}
	f(a, 0, "e1;e2;e3;|final", true)
	f(a, 1, "e2;e3;|final", true)
	f(a, 3, "", true)
	f(b, 0, "b1;", true)
	f(odd, 0, "o1;", true)
	f(streamstore.Key{Session: "r1.AAAA", Stream: 1}, 0, "", false)

	// MaxEvents: the oldest go.
	c := streamstore.Key{Session: "r2.CCCC", Stream: 7}
	for i := 1; i <= 8; i++ {
		require.NoError(t, s.Append(ctx, c, streamstore.Event{Seq: uint64(i), Data: []byte{'0' + byte(i)}}))
	}
	f(c, 0, "45678", true)

	// Session state, and Forget of both.
	_, found, err := other.LoadSession(ctx, "r1.AAAA")
	require.NoError(t, err)
	require.False(t, found)
	require.NoError(t, s.SaveSession(ctx, "r1.AAAA", []byte(`{"protocolVersion":"2025-11-25"}`)))
	state, found, err := other.LoadSession(ctx, "r1.AAAA")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, `{"protocolVersion":"2025-11-25"}`, string(state))
	require.NoError(t, other.Forget(ctx, "r1.AAAA"))
	f(a, 0, "", false)
	f(b, 0, "b1;", true) // another session's stream stays
	_, found, err = s.LoadSession(ctx, "r1.AAAA")
	require.NoError(t, err)
	require.False(t, found)
	require.NoError(t, s.Forget(ctx, "never.seen"))
}

func TestStoreFollow(t *testing.T) {
	url := natstest.Start(t)
	s, other := newStore(t, url), newStore(t, url)
	key := streamstore.Key{Session: "r1.FFFF", Stream: 3}
	ctx := context.Background()
	require.NoError(t, s.Append(ctx, key, streamstore.Event{Seq: 1, Data: []byte("1")}))
	require.NoError(t, s.Append(ctx, key, streamstore.Event{Seq: 2, Data: []byte("2")}))
	got := make(chan string, 10)
	done := make(chan error, 1)
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	go func() {
		done <- other.Follow(fctx, key, 1, func(ev streamstore.Event) error { got <- string(ev.Data); return nil })
	}()
	require.Equal(t, "2", <-got)
	require.NoError(t, s.Append(ctx, key, streamstore.Event{Seq: 3, Data: []byte("3")})) // live, from the other replica
	require.Equal(t, "3", <-got)
	require.NoError(t, s.Append(ctx, key, streamstore.Event{Seq: 4, Data: []byte("4"), Final: true}))
	require.Equal(t, "4", <-got)
	require.NoError(t, <-done) // the final event ends it
	require.Empty(t, got)

	// A follow with nothing coming ends with its context.
	short, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	require.ErrorIs(t, other.Follow(short, streamstore.Key{Session: "r1.FFFF", Stream: 9}, 0,
		func(streamstore.Event) error { return nil }), context.DeadlineExceeded)
}

// replica is one MCP endpoint on loopback whose events and sessions are
// in the shared store.
type replica struct {
	url string
	h   *mcphttp.Handler
}

func newReplica(t *testing.T, natsURL, instance string, key []byte) *replica {
	t.Helper()
	s := mcp.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	ids, err := mcphttp.NewSessionIDs(instance, key)
	require.NoError(t, err)
	h := mcphttp.New(s, &mcphttp.Options{EventStore: newStore(t, natsURL), SessionIDs: ids, Retry: 50 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &fasthttp.Server{Handler: h.ServeFastHTTP, CloseOnShutdown: true}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		_ = srv.ShutdownWithContext(ctx)
		s.Close()
	})
	return &replica{url: "http://" + ln.Addr().String() + "/mcp", h: h}
}

var client = &http.Client{Timeout: 10 * time.Second}

func (r *replica) open(t *testing.T, method, sid, last, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, r.url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	res, err := client.Do(req)
	require.NoError(t, err)
	return res
}

func (r *replica) do(t *testing.T, method, sid, last, body string) (int, string) {
	t.Helper()
	res := r.open(t, method, sid, last, body)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// sse reads events until n have data (n < 0: until the stream ends).
func sse(br *bufio.Reader, n int) [][2]string {
	var out [][2]string
	var id, data string
	for n < 0 || len(out) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		case line == "":
			if data != "" {
				out = append(out, [2]string{id, data})
			}
			id, data = "", ""
		}
	}
	return out
}

// TestReplicas: a session opened on replica A is adopted by B (requests,
// a resume that follows A's live events), a made-up id is still 404, a
// replica that shuts down leaves its sessions to the others.
func TestReplicas(t *testing.T) {
	url := natstest.Start(t)
	key := []byte("0123456789abcdef0123456789abcdef")
	a, b := newReplica(t, url, "ra", key), newReplica(t, url, "rb", key)
	res := a.open(t, "POST", "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := res.Header.Get("Mcp-Session-Id")
	res.Body.Close()
	require.True(t, strings.HasPrefix(sid, "ra."), sid)

	// B adopts it: a request, with the revision A negotiated.
	code, body := b.do(t, "POST", sid, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"text":"hi"`)
	require.Equal(t, 1, b.h.Sessions())
	// A made-up id (another key's MAC) is 404 on B.
	forged, _ := mcphttp.NewSessionIDs("ra", []byte("another key of 32 bytes........."))
	code, _ = b.do(t, "POST", forged.New(), "", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	require.Equal(t, 404, code)

	// A countdown on A; the client loses A's connection after three
	// progress events and resumes on B while A is still counting: B
	// replays what the store has, then follows A's appends.
	res = a.open(t, "POST", sid, "", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"countdown","arguments":{"n":6,"intervalMs":60},"_meta":{"progressToken":"p"}}}`)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	first := sse(bufio.NewReader(res.Body), 3) // the priming event has no data: not counted
	res.Body.Close()
	require.Len(t, first, 3)
	require.Contains(t, first[2][1], `"progress":3`)
	res = b.open(t, "GET", sid, first[2][0], "")
	require.Equal(t, 200, res.StatusCode)
	rest := sse(bufio.NewReader(res.Body), -1)
	res.Body.Close()
	stream := strings.Split(first[0][0], "-")[0]
	require.Len(t, rest, 4, "%q", rest) // progress 4..6 and the result, once each
	for i, ev := range rest {
		require.Equal(t, stream+"-"+itoa(i+4), ev[0])
	}
	require.Contains(t, rest[2][1], `"progress":6`)
	require.Contains(t, rest[3][1], `"id":10,"result":{"content":[{"type":"text","text":"done"}]}`)
	code, _ = b.do(t, "GET", sid, rest[3][0], "")
	require.Equal(t, 204, code) // ended, nothing more
	// A shuts down: its sessions stay in the store; B still serves this one.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, a.h.Shutdown(ctx))
	code, body = b.do(t, "POST", sid, "", `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	require.Equal(t, 200, code, body)
	// DELETE on B forgets it everywhere.
	code, _ = b.do(t, "DELETE", sid, "", "")
	require.Equal(t, 200, code)
	c := newReplica(t, url, "rc", key)
	code, _ = c.do(t, "POST", sid, "", `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	require.Equal(t, 404, code)
}

func itoa(n int) string { return strconv.Itoa(n) }
