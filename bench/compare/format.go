package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteJSON writes rep as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteTable writes rep as a table for people: a header line, one row per
// server and one of ratios, what the per-request figures cover, and the
// req/s of every round.
func (rep *Report) WriteTable(w io.Writer) error {
	framing := ""
	if rep.Framing != "" {
		framing = " " + rep.Framing
	}
	fmt.Fprintf(w, "jetrpc bench: %s%s, %d conns x %d in flight, mix %s, %d rounds, %v per server\n\n",
		rep.Transport, framing, rep.Conns, rep.Pipeline, rep.Mix, rep.Rounds, time.Duration(rep.Duration*float64(time.Second)))
	if err := rep.writeRows(w); err != nil {
		return err
	}
	for _, s := range rep.Servers {
		if s.Name == "baseline" && s.JSON != "" {
			v2 := "baseline-v2: encoding/json/v2 + jsontext"
			if len(rep.Servers) < 2 || rep.Servers[len(rep.Servers)-2].Name != BaselineV2 {
				v2 = "baseline-v2 (encoding/json/v2 + jsontext) needs a build with GOEXPERIMENT=jsonv2"
			}
			fmt.Fprintf(w, "\nbaseline: %s; %s.\n", s.JSON, v2)
		}
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

// writeRows writes the table's aligned rows: the servers, then the ratios.
func (rep *Report) writeRows(w io.Writer) error {
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
	ratio := func(name string, r *Ratio) {
		fmt.Fprintf(tw, "%s/baseline\t%.2fx\t%.2fx\t\t%.2fx\t\t\t%s\t%s\t%s\t\t\n", name, r.ReqPerSec, r.P50, r.P99,
			opt(r.CPUPerCall, "x"), opt(r.BytesPerCall, "x"), opt(r.AllocsPerCall, "x"))
	}
	if len(rep.Ratios) == 0 && rep.Ratio != nil {
		ratio(rep.Servers[0].Name, rep.Ratio)
	}
	for _, s := range rep.Servers {
		if r := rep.Ratios[s.Name]; r != nil {
			ratio(s.Name, r)
		}
	}
	return tw.Flush()
}

// SVG draws one horizontal bar of req/s per server, with its value.
func (rep *Report) SVG() []byte {
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
