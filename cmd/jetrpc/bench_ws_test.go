package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBenchWS runs "jetrpc bench --transport ws --duration 1s --json" end to
// end: jetrpc's /ws (its demo methods registered each way) against the
// encoding/json baseline over WebSocket.
func TestBenchWS(t *testing.T) {
	noLeaks(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := run(ctx, []string{"bench", "--transport", "ws", "--duration", "1s", "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if stderr.String() != "" {
		t.Errorf("stderr: %q", stderr.String())
	}
	var rep struct {
		Transport string `json:"transport"`
		Framing   string `json:"framing"`
		Servers   []struct {
			Name                                                 string
			Calls, OK, Errors, Unanswered, Mismatched, Malformed int64
			Failed                                               int64
			ReqPerSec                                            float64  `json:"req_per_s"`
			Allocs                                               *float64 `json:"allocs_per_call"`
		} `json:"servers"`
		Ratio map[string]float64 `json:"ratio"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("%v in:\n%s", err, stdout.String())
	}
	if rep.Transport != "ws" || rep.Framing != "" {
		t.Errorf("transport %q, framing %q", rep.Transport, rep.Framing)
	}
	if len(rep.Servers) != 4 || rep.Servers[0].Name != "jetrpc" || rep.Servers[2].Name != "jetrpc-typed" || rep.Servers[3].Name != "baseline" {
		t.Fatalf("servers: %+v", rep.Servers)
	}
	for _, s := range rep.Servers {
		if s.OK == 0 || s.OK != s.Calls || s.Failed != 0 || s.Errors+s.Unanswered+s.Mismatched+s.Malformed != 0 || s.ReqPerSec <= 0 || s.Allocs == nil {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	if rep.Ratio["req_per_s"] <= 0 {
		t.Errorf("ratio: %v", rep.Ratio)
	}
}

// TestBenchTransportUsage: a bad --transport names every transport.
func TestBenchTransportUsage(t *testing.T) {
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code := run(ctx, []string{"bench", "--transport", "udp"}, strings.NewReader(""), &stdout, &stderr)
	if want := "--transport udp: must be tcp, http or ws"; code != 2 || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr.String(), want)
	}
}
