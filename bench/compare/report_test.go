package compare

import (
	"bytes"
	"encoding/json"
	"github.com/jetrpc/jetrpc/bench"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

// fixedSample is a server's sums: calls answered in 1s, with latencies of
// lat, the process's usage u.
func fixedSample(ok int64, lat time.Duration, u usage, rounds ...float64) sample {
	s := sample{usage: u, rounds: rounds}
	s.Calls, s.OK, s.Elapsed = ok, ok, time.Second
	for range ok {
		s.Latency.Record(lat)
	}
	return s
}

func testReport(t *testing.T) *Report {
	t.Helper()
	cfg := &Config{Transport: load.TCP, Framing: frame.NDJSON, Conns: 32, Pipeline: 16, Duration: 2 * time.Second, Rounds: 2, Mix: "small"}
	servers := []server{{"jetrpc", "127.0.0.1:1", true}, {"baseline", "127.0.0.1:2", true}}
	samples := []sample{
		fixedSample(1000, 100*time.Microsecond, usage{2 * time.Millisecond, 1500, 0}, 990.4, 1010.6),
		fixedSample(500, 400*time.Microsecond, usage{4 * time.Millisecond, 350000, 7000}, 500, 500),
	}
	return newReport(cfg, servers, samples)
}

func TestNewReport(t *testing.T) {
	rep := testReport(t)
	j, b := rep.Servers[0], rep.Servers[1]
	if j.Requests != 1000 || j.ReqPerSec != 1000 || j.Latency.P50 != 100 || j.Latency.Max != 100 || j.RoundReqPerS[0] != 990 {
		t.Errorf("jetrpc: %+v", j)
	}
	if *j.CPUPerCall != 2000 || *j.BytesPerCall != 1.5 || *j.AllocsPerCall != 0 || *b.AllocsPerCall != 14 {
		t.Errorf("per call: jetrpc %v %v %v, baseline allocs %v", *j.CPUPerCall, *j.BytesPerCall, *j.AllocsPerCall, *b.AllocsPerCall)
	}
	r := rep.Ratio
	if r == nil || r.ReqPerSec != 2 || r.P50 != 0.25 || r.P99 != 0.25 || *r.CPUPerCall != 0.25 || *r.AllocsPerCall != 0 {
		t.Errorf("ratio: %+v", r)
	}
	if rep.Framing != "ndjson" || rep.CPUNote != cpuNote {
		t.Errorf("framing %q, note %q", rep.Framing, rep.CPUNote)
	}
}

// TestNewReportTarget: an external server has no per-request costs, and one
// server has no ratio.
func TestNewReportTarget(t *testing.T) {
	cfg := &Config{Transport: load.WS, Conns: 1, Pipeline: 1, Duration: time.Second, Rounds: 1, Mix: "small"}
	rep := newReport(cfg, []server{{name: "target", addr: "x"}}, []sample{fixedSample(10, time.Millisecond, usage{}, 10)})
	s := rep.Servers[0]
	if rep.Ratio != nil || rep.CPUNote != "" || rep.Framing != "" || s.CPUPerCall != nil || s.BytesPerCall != nil || s.AllocsPerCall != nil {
		t.Errorf("report: %+v", rep)
	}
	var out bytes.Buffer
	if err := rep.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "jetrpc/baseline") || strings.Contains(out.String(), "cpu/req:") || !strings.Contains(out.String(), "-  ") {
		t.Errorf("table:\n%s", out.String())
	}
}

// TestWriteTable pins the table's layout, which the README shows.
func TestWriteTable(t *testing.T) {
	var out bytes.Buffer
	if err := testReport(t).WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	want := `jetrpc bench: tcp ndjson, 32 conns x 16 in flight, mix small, 2 rounds, 2s per server

           server  req/s    p50    p90    p99  p99.9    max  cpu/req  B/req  allocs/req  failed
           jetrpc   1000  100µs  100µs  100µs  100µs  100µs   2000ns    1.5           0       0
         baseline    500  400µs  400µs  400µs  400µs  400µs   8000ns    700          14       0
  jetrpc/baseline  2.00x  0.25x         0.25x                  0.25x     0x          0x        

baseline: ` + bench.JSONBuild + `; baseline-v2 (encoding/json/v2 + jsontext) needs a build with GOEXPERIMENT=jsonv2.

cpu/req: ` + cpuNote + `.
B/req, allocs/req: heap allocations of the process (runtime/metrics) per request; the load generator allocates nothing per call.
req/s per round: jetrpc 990 1011; baseline 500 500
`
	if got := out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteJSON(t *testing.T) {
	var out bytes.Buffer
	if err := testReport(t).WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"transport", "framing", "conns", "pipeline", "duration_s", "rounds", "mix", "servers", "ratio", "cpu_note"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, out.String())
		}
	}
	s := m["servers"].([]any)[0].(map[string]any)
	for _, k := range []string{"requests", "req_per_s", "round_req_per_s", "latency_us", "cpu_ns_per_call", "alloc_bytes_per_call", "allocs_per_call", "failed"} {
		if _, ok := s[k]; !ok {
			t.Errorf("no server %q in %s", k, out.String())
		}
	}
}

func TestSVG(t *testing.T) {
	rep := testReport(t)
	rep.Mix = "a<b"
	svg := string(rep.SVG())
	for _, want := range []string{"<svg ", ">jetrpc<", ">baseline<", "1000 req/s", `width="420.0"`, `width="210.0"`, "mix a&lt;b", "</svg>\n"} {
		if !strings.Contains(svg, want) {
			t.Errorf("no %q in:\n%s", want, svg)
		}
	}
}
