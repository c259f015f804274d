package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"text/tabwriter"
)

// median of the values, 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printConns prints, per connection count and server, the medians over the
// rounds and their ratios to the line server.
func printConns(w io.Writer, rs []connResult) {
	type key struct {
		conns  int
		server string
	}
	var keys []key
	vals := map[key]map[string][]float64{}
	failed := map[key]int64{}
	for _, r := range rs {
		k := key{r.Conns, r.Server}
		if vals[k] == nil {
			keys = append(keys, k)
			vals[k] = map[string][]float64{}
		}
		failed[k] += r.Failed
		if r.Err != "" {
			continue
		}
		for name, v := range map[string]float64{"rps": r.ReqPerS, "cpu": r.CPUPerCall, "rss": r.RSSPerConn, "p50": r.P50us, "p99": r.P99us} {
			vals[k][name] = append(vals[k][name], v)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conns\tserver\treq/s\tx lines\tCPU ns/call\tx lines\tRSS B/conn\tp50 µs\tp99 µs\tfailed\truns\t")
	for _, k := range keys {
		v, l := vals[k], vals[key{k.conns, lines}]
		rps, cpu := median(v["rps"]), median(v["cpu"])
		fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.2f\t%.0f\t%.2f\t%.0f\t%.0f\t%.0f\t%d\t%d\t\n", k.conns, k.server,
			rps, ratio(rps, median(l["rps"])), cpu, ratio(cpu, median(l["cpu"])), median(v["rss"]),
			median(v["p50"]), median(v["p99"]), failed[k], len(v["rps"]))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// printBatches prints, per batch and server, the medians over the rounds.
func printBatches(w io.Writer, rs []batchResult) {
	type key struct {
		members int
		method  string
		server  string
	}
	var keys []key
	vals := map[key][][]float64{}
	for _, r := range rs {
		k := key{r.Members, r.Method, r.Server}
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
			vals[k] = make([][]float64, 9)
		}
		if r.Err != "" {
			continue
		}
		for i, v := range []float64{float64(r.FirstAlloc), float64(r.Goroutines[0]), float64(r.Goroutines[1]),
			float64(r.Goroutines[2]), float64(r.StackBytes[2]), float64(r.RSS[0]), float64(r.RSS[1]), float64(r.RSS[2]), r.AnsweredMs} {
			vals[k][i] = append(vals[k][i], v)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "batch\tmethod\tserver\tfirst batch KiB\tgoroutines before\tright after\t1 s after\tstacks 1 s after KiB\tRSS MiB before\tright after\t1 s after\tanswered ms\truns\t")
	for _, k := range keys {
		v := vals[k]
		m := func(i int) float64 { return median(v[i]) }
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t\n", k.members, k.method, k.server,
			m(0)/1024, m(1), m(2), m(3), m(4)/1024, m(5)/(1<<20), m(6)/(1<<20), m(7)/(1<<20), m(8), len(v[0]))
	}
	tw.Flush()
	fmt.Fprintln(w)
}
