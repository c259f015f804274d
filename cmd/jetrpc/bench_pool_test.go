package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBenchPool: jetrpc bench --target A,B --idempotent --hedge-after
// measures through client.Pool; --json keeps today's fields and adds
// retries and hedges.
func TestBenchPool(t *testing.T) {
	a, b := startCallServers(t), startCallServers(t)
	for _, tr := range []struct{ transport, a, b string }{{"tcp", a.tcp, b.tcp}, {"http", a.http, b.http}, {"ws", a.http, b.http}} {
		var out, errs syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		code := run(ctx, []string{"bench", "--transport", tr.transport, "--target", tr.a + "," + tr.b, "--idempotent",
			"--hedge-after", "50ms", "--duration", "300ms", "--conns", "2", "--pipeline", "2", "--warmup=false", "--json"},
			strings.NewReader(""), &out, &errs)
		cancel()
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tr.transport, code, errs.String())
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", tr.transport, err, out.String())
		}
		s := rep["servers"].([]any)[0].(map[string]any)
		for _, k := range []string{"ok", "errors", "unanswered", "dropped", "failed", "req_per_s", "latency_us", "retries", "hedges"} {
			if _, ok := s[k]; !ok {
				t.Errorf("%s: --json lacks %q: %s", tr.transport, k, out.String())
			}
		}
		if s["ok"].(float64) == 0 || s["failed"].(float64) != 0 {
			t.Errorf("%s: %s", tr.transport, out.String())
		}
	}
	var out, errs syncBuffer
	if code := run(context.Background(), []string{"bench", "--hedge-after", "1ms"}, strings.NewReader(""), &out, &errs); code != 2 {
		t.Errorf("--hedge-after without --target: exit %d", code)
	}
}
