package mcpbench

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// median of v (0 when empty); v is sorted in place.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// WriteTable prints the results as one Markdown table of medians over the
// rounds (first progress: over every call of every round), then the ratios
// of each jetrpc server (kinds[name] == KindJetRPC) to the best peer.
func WriteTable(w io.Writer, r *Results, kinds map[string]string) {
	fmt.Fprintln(w, "| server | revision | echo req/s | allocs/call | B/call | first progress p50 | p99 | RSS/session | heap/session |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, k := range r.Keys {
		row := r.Rows[k]
		sess := []string{"-", "-"}
		if len(row.SessRSS) > 0 {
			sess = []string{kb(median(row.SessRSS)), kb(median(row.SessHeap))}
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %.1f | %.0f | %s | %s | %s | %s |\n", k.Server, k.Version,
			median(row.ReqPerSec), median(row.Mallocs), median(row.Bytes),
			ms(Quantile(row.FirstProgress, 0.5)), ms(Quantile(row.FirstProgress, 0.99)), sess[0], sess[1])
	}
	fmt.Fprintln(w)
	for _, k := range r.Keys {
		if kinds[k.Server] != KindJetRPC {
			continue
		}
		var bestRate, fewest float64
		var rateName, allocName string
		for _, p := range r.Keys {
			if p.Version != k.Version || kinds[p.Server] == KindJetRPC {
				continue
			}
			row := r.Rows[p]
			if v := median(row.ReqPerSec); v > bestRate {
				bestRate, rateName = v, p.Server
			}
			if v := median(row.Mallocs); allocName == "" || v < fewest {
				fewest, allocName = v, p.Server
			}
		}
		if rateName == "" {
			continue
		}
		row := r.Rows[k]
		fmt.Fprintf(w, "%s on %s: %.2fx the req/s of %s (goal 3x), %.3f of the allocs/call of %s (goal 0.1)\n",
			k.Server, k.Version, median(row.ReqPerSec)/bestRate, rateName, median(row.Mallocs)/fewest, allocName)
	}
}

func kb(b float64) string { return fmt.Sprintf("%.1f KB", b/1000) }

func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}
