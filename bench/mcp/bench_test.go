package mcpbench

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRun: a short run of the whole benchmark over the three servers
// fills every row, and the table has a line per row and the ratios.
func TestRun(t *testing.T) {
	specs := []Spec{{"jet", KindJetRPC, bins[KindJetRPC]}, {"sdk", KindGoSDK, bins[KindGoSDK]}, {"mgo", KindMCPGo, bins[KindMCPGo]}}
	cfg := Config{Clients: 4, Duration: 200 * time.Millisecond, Sessions: 20, Progress: 5}
	var runs int
	res, err := Run(context.Background(), specs, []string{V20251125, V20260728}, cfg, 2,
		func(string, ...any) { runs++ })
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2*3*(3+2) {
		t.Fatalf("%d runs", runs)
	}
	if len(res.Keys) != 6 {
		t.Fatalf("keys %v", res.Keys)
	}
	for _, k := range res.Keys {
		r := res.Rows[k]
		if len(r.ReqPerSec) != 2 || r.ReqPerSec[0] <= 0 || r.Mallocs[0] <= 0 || r.Bytes[0] <= 0 || len(r.FirstProgress) != 10 {
			t.Fatalf("%v: %+v", k, r)
		}
		if (len(r.SessRSS) == 2) != (k.Version == V20251125) || len(r.SessHeap) != len(r.SessRSS) {
			t.Fatalf("%v sessions: %+v", k, r)
		}
	}
	var b strings.Builder
	WriteTable(&b, res, map[string]string{"jet": KindJetRPC, "sdk": KindGoSDK, "mgo": KindMCPGo})
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{"| jet | 2025-11-25 |", "| mgo | 2026-07-28 |", "jet on 2025-11-25: ", "jet on 2026-07-28: ", "(goal 3x)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
}

func TestQuantile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3}
	if Quantile(d, 0.5) != 3 || Quantile(d, 0) != 1 || Quantile(d, 1) != 5 || Quantile(nil, 0.5) != 0 {
		t.Fatal(d)
	}
	if median([]float64{4, 1, 3, 2}) != 2.5 || median([]float64{3, 1, 2}) != 2 || median(nil) != 0 {
		t.Fatal("median")
	}
}
