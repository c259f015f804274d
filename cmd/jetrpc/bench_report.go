package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
)

// benchReport is the result of "jetrpc bench"; its JSON form is the --json
// output, documented in the README.
type benchReport struct {
	Transport string         `json:"transport"`
	Framing   string         `json:"framing,omitempty"`
	Conns     int            `json:"conns"`
	Pipeline  int            `json:"pipeline"`
	Duration  float64        `json:"duration_s"` // measured time per server asked for
	Rounds    int            `json:"rounds"`
	Mix       string         `json:"mix"`
	Servers   []serverReport `json:"servers"`
	// Ratio is jetrpc / baseline for each figure (absent with --target).
	Ratio *benchRatio `json:"ratio,omitempty"`
	// CPUNote says what cpu_ns_per_call covers.
	CPUNote string `json:"cpu_note,omitempty"`
}

type serverReport struct {
	Name          string    `json:"name"`
	Addr          string    `json:"addr"`
	Requests      int64     `json:"requests"` // calls answered + notifications sent
	Calls         int64     `json:"calls"`
	OK            int64     `json:"ok"`
	Errors        int64     `json:"errors"`
	Unanswered    int64     `json:"unanswered"`
	Mismatched    int64     `json:"mismatched"`
	Malformed     int64     `json:"malformed"`
	Notifications int64     `json:"notifications"`
	Failed        int64     `json:"failed"` // errors+unanswered+mismatched+malformed
	Elapsed       float64   `json:"elapsed_s"`
	ReqPerSec     float64   `json:"req_per_s"`
	RoundReqPerS  []float64 `json:"round_req_per_s"`
	Latency       latency   `json:"latency_us"`
	// Per request, in-process servers only (null with --target).
	CPUPerCall    *float64 `json:"cpu_ns_per_call"`
	BytesPerCall  *float64 `json:"alloc_bytes_per_call"`
	AllocsPerCall *float64 `json:"allocs_per_call"`
}

type latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

type benchRatio struct {
	ReqPerSec     float64  `json:"req_per_s"`
	P50           float64  `json:"p50"`
	P99           float64  `json:"p99"`
	CPUPerCall    *float64 `json:"cpu_ns_per_call"`
	BytesPerCall  *float64 `json:"alloc_bytes_per_call"`
	AllocsPerCall *float64 `json:"allocs_per_call"`
}

const cpuNote = "process CPU time (getrusage) per request while that server was loaded: the load generator runs in the same process, so this is server + generator; the generator's part is the same for both servers"

func newReport(cfg *benchConfig, servers []benchServer, samples []sample) *benchReport {
	rep := &benchReport{Transport: cfg.transport, Conns: cfg.conns, Pipeline: cfg.pipeline,
		Duration: cfg.duration.Seconds(), Rounds: cfg.rounds, Mix: cfg.mix}
	if cfg.transport == load.TCP {
		rep.Framing = cfg.framing.String()
	}
	us := func(d time.Duration) float64 { return math.Round(float64(d)/10) / 100 } // µs, 2 decimals
	for i, s := range servers {
		sm := &samples[i]
		done := sm.Done()
		r := serverReport{Name: s.name, Addr: s.addr, Requests: done, Calls: sm.Calls, OK: sm.OK, Errors: sm.Errors,
			Unanswered: sm.Unanswered, Mismatched: sm.Mismatched, Malformed: sm.Malformed,
			Notifications: sm.Notifications, Failed: sm.Failed(), Elapsed: sm.Elapsed.Seconds(),
			ReqPerSec: math.Round(sm.Rate()), RoundReqPerS: sm.rounds}
		for j := range r.RoundReqPerS {
			r.RoundReqPerS[j] = math.Round(r.RoundReqPerS[j])
		}
		h := &sm.Latency
		r.Latency = latency{us(h.Quantile(0.5)), us(h.Quantile(0.9)), us(h.Quantile(0.99)), us(h.Quantile(0.999)), us(h.Max())}
		if s.inProcess && done > 0 {
			per := func(v float64) *float64 { x := math.Round(v/float64(done)*100) / 100; return &x }
			r.CPUPerCall = per(float64(sm.cpu))
			r.BytesPerCall = per(float64(sm.allocBytes))
			r.AllocsPerCall = per(float64(sm.allocObjects))
			rep.CPUNote = cpuNote
		}
		rep.Servers = append(rep.Servers, r)
	}
	if len(rep.Servers) == 2 {
		j, b := &rep.Servers[0], &rep.Servers[1]
		ratio := func(x, y float64) float64 {
			if y == 0 {
				return 0
			}
			return math.Round(x/y*100) / 100
		}
		ratioP := func(x, y *float64) *float64 {
			if x == nil || y == nil {
				return nil
			}
			r := ratio(*x, *y)
			return &r
		}
		rep.Ratio = &benchRatio{ReqPerSec: ratio(j.ReqPerSec, b.ReqPerSec), P50: ratio(j.Latency.P50, b.Latency.P50),
			P99: ratio(j.Latency.P99, b.Latency.P99), CPUPerCall: ratioP(j.CPUPerCall, b.CPUPerCall),
			BytesPerCall: ratioP(j.BytesPerCall, b.BytesPerCall), AllocsPerCall: ratioP(j.AllocsPerCall, b.AllocsPerCall)}
	}
	return rep
}

func (rep *benchReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func (rep *benchReport) writeTable(w io.Writer) error {
	framing := ""
	if rep.Framing != "" {
		framing = " " + rep.Framing
	}
	fmt.Fprintf(w, "jetrpc bench: %s%s, %d conns x %d in flight, mix %s, %d rounds, %v per server\n\n",
		rep.Transport, framing, rep.Conns, rep.Pipeline, rep.Mix, rep.Rounds, time.Duration(rep.Duration*float64(time.Second)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\treq/s\tp50\tp90\tp99\tp99.9\tmax\tcpu/req\tB/req\tallocs/req\tfailed\t")
	opt := func(v *float64, unit string) string {
		if v == nil {
			return "-"
		}
		if unit == "ns" {
			return fmt.Sprintf("%.0fns", *v)
		}
		return fmt.Sprintf("%.4g%s", *v, unit)
	}
	for _, s := range rep.Servers {
		l := s.Latency
		fmt.Fprintf(tw, "%s\t%.0f\t%.0fµs\t%.0fµs\t%.0fµs\t%.0fµs\t%.0fµs\t%s\t%s\t%s\t%d\t\n", s.Name, s.ReqPerSec,
			l.P50, l.P90, l.P99, l.P999, l.Max, opt(s.CPUPerCall, "ns"), opt(s.BytesPerCall, ""), opt(s.AllocsPerCall, ""), s.Failed)
	}
	if r := rep.Ratio; r != nil {
		fmt.Fprintf(tw, "jetrpc/baseline\t%.2fx\t%.2fx\t\t%.2fx\t\t\t%s\t%s\t%s\t\t\n", r.ReqPerSec, r.P50, r.P99,
			opt(r.CPUPerCall, "x"), opt(r.BytesPerCall, "x"), opt(r.AllocsPerCall, "x"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.CPUNote != "" {
		fmt.Fprintf(w, "\ncpu/req: %s.\nB/req, allocs/req: heap allocations of the process (runtime/metrics) per request; the load generator allocates nothing per call.\n", rep.CPUNote)
	}
	var rounds []string
	for _, s := range rep.Servers {
		var rs []string
		for _, r := range s.RoundReqPerS {
			rs = append(rs, fmt.Sprintf("%.0f", r))
		}
		rounds = append(rounds, s.Name+" "+strings.Join(rs, " "))
	}
	_, err := fmt.Fprintf(w, "req/s per round: %s\n", strings.Join(rounds, "; "))
	return err
}

// svg draws one horizontal bar of req/s per server, with its value.
func (rep *benchReport) svg() []byte {
	const width, left, barH, gap, top = 640, 110, 28, 12, 40
	top0 := 0.0
	for _, s := range rep.Servers {
		top0 = max(top0, s.ReqPerSec)
	}
	h := top + len(rep.Servers)*(barH+gap) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n", width, h, width, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/>`+"\n")
	title := fmt.Sprintf("jetrpc bench: req/s, %s, %d conns x %d in flight, mix %s", rep.Transport, rep.Conns, rep.Pipeline, rep.Mix)
	fmt.Fprintf(&b, `<text x="10" y="22" font-weight="bold">%s</text>`+"\n", xmlEscape(title))
	colors := []string{"#2b7bba", "#9a9a9a", "#e08214", "#5aae61"}
	for i, s := range rep.Servers {
		y := top + i*(barH+gap)
		w := 0.0
		if top0 > 0 {
			w = s.ReqPerSec / top0 * (width - left - 110)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+barH/2+5, xmlEscape(s.Name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, y, w, barH, colors[i%len(colors)])
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.0f req/s</text>`+"\n", float64(left)+w+6, y+barH/2+5, s.ReqPerSec)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
