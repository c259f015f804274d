package nethttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

func TestSSE(t *testing.T)           { sseSuite(t, startFastHTTP) }
func TestSSEStdHandler(t *testing.T) { sseSuite(t, startStdHTTP) }

// sseStream is an open event-stream response.
type sseStream struct {
	t    *testing.T
	resp *http.Response
	rd   *bufio.Reader
}

// postSSE posts msg asking for an event stream (with accept as the Accept
// header) and returns the open response.
func (h *httpTarget) postSSE(ctx context.Context, msg, accept string) *sseStream {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(msg))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("POST %s: %v", msg, err)
	}
	h.t.Cleanup(func() { resp.Body.Close() })
	return &sseStream{t: h.t, resp: resp, rd: bufio.NewReader(resp.Body)}
}

// next returns the data of the next event (its data lines joined with
// "\n", as an EventSource does), or ok false at the end of the stream.
func (s *sseStream) next() (data string, ok bool) {
	s.t.Helper()
	var lines []string
	for {
		line, err := s.rd.ReadString('\n')
		if err == io.EOF && line == "" && lines == nil {
			return "", false
		}
		if err != nil {
			s.t.Fatalf("reading the stream: %v (after %q)", err, lines)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if lines != nil {
				return strings.Join(lines, "\n"), true
			}
		case strings.HasPrefix(line, ":"): // a comment (keep-alive)
		case strings.HasPrefix(line, "data: "):
			lines = append(lines, line[len("data: "):])
		default:
			s.t.Fatalf("unexpected line %q in an event stream", line)
		}
	}
}

// all reads the events to the end of the stream.
func (s *sseStream) all() []string {
	s.t.Helper()
	var evs []string
	for {
		ev, ok := s.next()
		if !ok {
			return evs
		}
		evs = append(evs, ev)
	}
}

func (s *sseStream) wantStream() {
	s.t.Helper()
	if s.resp.StatusCode != http.StatusOK || s.resp.Header.Get("Content-Type") != "text/event-stream" {
		s.t.Fatalf("status %d, Content-Type %q; want 200 text/event-stream",
			s.resp.StatusCode, s.resp.Header.Get("Content-Type"))
	}
}

// field returns a top-level member of a JSON object, compacted.
func field(t *testing.T, msg, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("event %q is not a JSON object: %v", msg, err)
	}
	var b bytes.Buffer
	if m[name] != nil {
		json.Compact(&b, m[name])
	}
	return b.String()
}

func sseSuite(t *testing.T, start httpStart) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	accept := "application/json, text/event-stream"

	t.Run("batch", func(t *testing.T) {
		h := start(t, nil)
		s := h.postSSE(ctx, `[
			{"jsonrpc":"2.0","id":1,"method":"sleep","params":[100]},
			{"jsonrpc":"2.0","id":2,"method":"subtract","params":[5,3]},
			{"jsonrpc":"2.0","method":"update"},
			{"jsonrpc":"2.0","id":3,"method":"sleep","params":[20]},
			{"jsonrpc":"2.0","id":4,"method":"fail","params":{"code":-7,"message":"m","data":[1]}}]`, accept)
		s.wantStream()
		evs := s.all()
		var ids []string
		for _, ev := range evs {
			ids = append(ids, field(t, ev, "id"))
		}
		// The cheap members come first, in order; the sleeps as they end.
		if strings.Join(ids, ",") != "2,4,3,1" {
			t.Errorf("event ids %v, want 2,4,3,1:\n%s", ids, strings.Join(evs, "\n"))
		}
		if len(evs) == 4 && field(t, evs[1], "error") != `{"code":-7,"message":"m","data":[1]}` {
			t.Errorf("error event %s", evs[1])
		}
	})

	t.Run("streams before the batch ends", func(t *testing.T) {
		// A client that goes away is noticed at the next write: the
		// keep-alive comment, here every 50 ms.
		t.Cleanup(nethttp.SetSSEKeepAlive(50 * time.Millisecond))
		h := start(t, nil)
		sctx, stop := context.WithCancel(ctx)
		s := h.postSSE(sctx, `[{"jsonrpc":"2.0","id":1,"method":"sleep","params":[60000]},
			{"jsonrpc":"2.0","id":2,"method":"subtract","params":[5,3]}]`, "TEXT/Event-Stream")
		s.wantStream()
		h.awaitStart("sleep")
		if ev, ok := s.next(); !ok || field(t, ev, "id") != "2" {
			t.Fatalf("first event %q (%v), want subtract's while sleep runs", ev, ok)
		}
		stop() // the client goes away: the sleeping handler is cancelled (leak check)
	})

	t.Run("notifications during a call", func(t *testing.T) {
		h := start(t, nil)
		s := h.postSSE(ctx, `{"jsonrpc":"2.0","id":"s","method":"subscribe","params":[3]}`, accept)
		s.wantStream()
		evs := s.all()
		if len(evs) != 4 {
			t.Fatalf("events %q, want 3 notifications and the response", evs)
		}
		for i, ev := range evs[:3] {
			want := `{"subscription":"s","result":` + string(rune('1'+i)) + `}`
			if field(t, ev, "method") != `"subscription"` || field(t, ev, "params") != want {
				t.Errorf("event %d: %s, want params %s", i, ev, want)
			}
		}
		if field(t, evs[3], "result") != "3" || field(t, evs[3], "id") != `"s"` {
			t.Errorf("last event %s, want the response", evs[3])
		}
	})

	t.Run("multi-line data and errors", func(t *testing.T) {
		h := start(t, nil)
		s := h.postSSE(ctx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":[1,\r\n2,\n3]}", accept)
		s.wantStream()
		evs := s.all()
		if len(evs) != 1 || field(t, evs[0], "result") != "[1,2,3]" {
			t.Errorf("events %q, want one echo result across data lines", evs)
		}
		s = h.postSSE(ctx, `{"jsonrpc":"2.0","id":1,"method":"callback","params":["m"]}`, accept)
		if evs := s.all(); len(evs) != 1 || !strings.Contains(field(t, evs[0], "error"), `"code":-32004`) {
			t.Errorf("callback over SSE: %q, want -32004", evs)
		}
		s = h.postSSE(ctx, `{"jsonrpc"`, accept)
		if evs := s.all(); len(evs) != 1 || !strings.Contains(field(t, evs[0], "error"), `"code":-32700`) {
			t.Errorf("parse error over SSE: %q", evs)
		}
	})

	t.Run("nothing due", func(t *testing.T) {
		h := start(t, nil)
		s := h.postSSE(ctx, `[{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"sleep","params":[10]}]`, accept)
		if s.resp.StatusCode != http.StatusNoContent {
			t.Errorf("only notifications: status %d, want 204", s.resp.StatusCode)
		}
		// Without text/event-stream in Accept the answer is plain JSON.
		r := h.post(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":[2]}`)
		r.wantCall(t, `"error":{"code":-32004`)
	})
}
