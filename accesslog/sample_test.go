package accesslog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/accesslog"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestSample: 1 in N ordinary calls is logged, every error and every slow
// call always (counted), with params redacted and result sizes.
func TestSample(t *testing.T) {
	var buf syncBuffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	obs := accesslog.New(l, &accesslog.Options{Sample: 10, SlowCall: 20 * time.Millisecond,
		Params: true, ResultSize: true, Redact: func(method string, p []byte) []byte {
			return bytes.ReplaceAll(p, []byte("secret"), []byte("***"))
		}})
	e := dispatch.New(&dispatch.Options{Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	call := func(method, params string) {
		e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+method+`","params":`+params+`,"id":1}`))
	}
	for i := range 100 {
		call("subtract", "["+strconv.Itoa(i)+",1]")
	}
	for range 7 {
		call("fail", `{"code":-32000,"message":"secret"}`)
	}
	for range 3 {
		call("sleep", "[25]")
	}
	counts := map[string]int{}
	for line := range strings.Lines(buf.b.String()) {
		var r struct {
			Msg, Method, Params string
			Code                int
			Result              *int `json:"result_bytes"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		counts[r.Msg+" "+r.Method]++
		if strings.Contains(r.Params, "secret") || r.Params == "" || r.Result == nil {
			t.Errorf("record %s: params not redacted, or no params or result_bytes", line)
		}
	}
	want := map[string]int{"jetrpc call subtract": 10, "jetrpc call fail": 7, "jetrpc slow call sleep": 3}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%q: %d records, want %d (all: %v)", k, counts[k], n, counts)
		}
	}
}
