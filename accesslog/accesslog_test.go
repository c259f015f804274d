package accesslog_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/accesslog"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
)

// syncBuffer collects log output written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var rs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	s.b.Reset()
	return rs
}

func newLogged(t testing.TB, level slog.Level, opts *accesslog.Options) (*dispatch.Engine, *syncBuffer) {
	buf := new(syncBuffer)
	l := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level}))
	e := dispatch.New(&dispatch.Options{Observer: accesslog.New(l, opts), Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e, buf
}

func TestRecords(t *testing.T) {
	e, buf := newLogged(t, slog.LevelDebug, &accesslog.Options{SlowCall: 15 * time.Millisecond})
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"update","params":[1]}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"fail","params":{"code":5,"message":"m"},"id":"f"}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"sleep","params":[30],"id":2}`))
	rs := buf.records(t)
	if len(rs) != 4 {
		t.Fatalf("%d records, want 4: %v", len(rs), rs)
	}
	f := func(r map[string]any, level, msg, method string, id any, code float64) {
		t.Helper()
		if r["level"] != level || r["msg"] != msg || r["method"] != method || r["id"] != id || r["code"] != code {
			t.Errorf("record %v, want %s %q method %s id %v code %v", r, level, msg, method, id, code)
		}
		if _, ok := r["duration"]; !ok {
			t.Errorf("record %v has no duration", r)
		}
	}
	f(rs[0], "DEBUG", accesslog.MsgCall, "subtract", "1", 0)
	f(rs[1], "DEBUG", accesslog.MsgCall, "update", nil, 0)
	f(rs[2], "DEBUG", accesslog.MsgCall, "fail", `"f"`, 5)
	f(rs[3], "WARN", accesslog.MsgSlowCall, "sleep", "2", 0)
	if d := rs[3]["duration"].(float64); d < float64(30*time.Millisecond) {
		t.Errorf("slow call duration %v ns, want at least 30 ms", d)
	}
}

// TestSlowOnly: at Info level only slow calls are logged.
func TestSlowOnly(t *testing.T) {
	e, buf := newLogged(t, slog.LevelInfo, &accesslog.Options{SlowCall: 15 * time.Millisecond})
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"sleep","params":[30],"id":2}`))
	rs := buf.records(t)
	if len(rs) != 1 || rs[0]["msg"] != accesslog.MsgSlowCall {
		t.Fatalf("records %v, want the slow call only", rs)
	}
}

// TestTransport: over TCP a record names the transport and the client.
func TestTransport(t *testing.T) {
	e, buf := newLogged(t, slog.LevelDebug, nil)
	s := netserver.New(e, &netserver.Options{Framing: frame.NDJSON, Logger: slog.New(slog.DiscardHandler)})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
	}()
	nc, err := net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(nc, `{"jsonrpc":"2.0","method":"nope","id":3}`+"\n")
	if _, err := bufio.NewReader(nc).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	rs := buf.records(t)
	if len(rs) != 1 {
		t.Fatalf("records %v, want 1", rs)
	}
	r := rs[0]
	if r["method"] != "nope" || r["code"] != float64(-32601) || r["transport"] != "tcp" || r["remote"] != nc.LocalAddr().String() {
		t.Errorf("record %v, want method nope, code -32601, transport tcp, remote %s", r, nc.LocalAddr())
	}
}
