package compare

import (
	"github.com/jetrpc/jetrpc/bench"
	"math"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
)

// Report is the result of a comparison; its JSON form is the --json output
// of "jetrpc bench", documented in the README.
type Report struct {
	Transport string         `json:"transport"`
	Framing   string         `json:"framing,omitempty"`
	Conns     int            `json:"conns"`
	Pipeline  int            `json:"pipeline"`
	Duration  float64        `json:"duration_s"` // measured time per server asked for
	Rounds    int            `json:"rounds"`
	Mix       string         `json:"mix"`
	Servers   []ServerReport `json:"servers"`
	// Ratio is jetrpc / baseline for each figure (absent with a Target),
	// jetrpc being the first server (the first of Config.Methods).
	Ratio *Ratio `json:"ratio,omitempty"`
	// Ratios are every jetrpc server's figures over the baseline's, by
	// server name (absent with a Target).
	Ratios map[string]*Ratio `json:"ratios,omitempty"`
	// CPUNote says what cpu_ns_per_call covers.
	CPUNote string `json:"cpu_note,omitempty"`
}

// ServerReport is what one server did over all rounds.
type ServerReport struct {
	Name string `json:"name"`
	// Methods is how an in-process jetrpc server's demo methods are
	// registered: inline (demo.Register), default or typed (see
	// demo.Mode); empty for the baseline and a target.
	Methods string `json:"methods,omitempty"`
	// JSON is what a baseline server runs on (bench.JSONBuild, or
	// encoding/json/v2 for BaselineV2); empty for jetrpc and a target.
	JSON          string    `json:"json,omitempty"`
	Addr          string    `json:"addr"`
	Requests      int64     `json:"requests"` // calls answered + notifications sent
	Calls         int64     `json:"calls"`
	OK            int64     `json:"ok"`
	Errors        int64     `json:"errors"`
	Unanswered    int64     `json:"unanswered"`
	Dropped       int64     `json:"dropped"`    // in flight on a connection the server closed (--reconnect)
	Reconnects    int64     `json:"reconnects"` // connections dialled again (--reconnect)
	Mismatched    int64     `json:"mismatched"`
	Malformed     int64     `json:"malformed"`
	Notifications int64     `json:"notifications"`
	Failed        int64     `json:"failed"` // errors+unanswered+dropped+mismatched+malformed
	Elapsed       float64   `json:"elapsed_s"`
	ReqPerSec     float64   `json:"req_per_s"`
	RoundReqPerS  []float64 `json:"round_req_per_s"`
	Latency       Latency   `json:"latency_us"`
	// Per request, in-process servers only (null with a Target).
	CPUPerCall    *float64 `json:"cpu_ns_per_call"`
	BytesPerCall  *float64 `json:"alloc_bytes_per_call"`
	AllocsPerCall *float64 `json:"allocs_per_call"`
}

// Latency is a server's latency quantiles, in µs.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Ratio is jetrpc's figures over the baseline's; a per-request figure is
// nil when either side has none.
type Ratio struct {
	ReqPerSec     float64  `json:"req_per_s"`
	P50           float64  `json:"p50"`
	P99           float64  `json:"p99"`
	CPUPerCall    *float64 `json:"cpu_ns_per_call"`
	BytesPerCall  *float64 `json:"alloc_bytes_per_call"`
	AllocsPerCall *float64 `json:"allocs_per_call"`
}

// BaselineV2 names the encoding/json/v2 baseline's server (bench.NewStdlibV2),
// which only a GOEXPERIMENT=jsonv2 build runs.
const BaselineV2 = "baseline-v2"

const cpuNote = "process CPU time (getrusage) per request while that server was loaded: the load generator runs in the same process, so this is server + generator; the generator's part is the same for every server"

func newReport(cfg *Config, servers []server, samples []sample) *Report {
	rep := &Report{Transport: cfg.Transport, Conns: cfg.Conns, Pipeline: cfg.Pipeline,
		Duration: cfg.Duration.Seconds(), Rounds: cfg.Rounds, Mix: cfg.Mix}
	if cfg.Transport == load.TCP {
		rep.Framing = cfg.Framing.String()
	}
	for i, s := range servers {
		r := serverReport(s, &samples[i])
		if r.CPUPerCall != nil {
			rep.CPUNote = cpuNote
		}
		rep.Servers = append(rep.Servers, r)
	}
	if n := len(rep.Servers); n >= 2 && rep.Servers[n-1].Name == "baseline" {
		base := &rep.Servers[n-1]
		rep.Ratio = newRatio(&rep.Servers[0], base)
		rep.Ratios = map[string]*Ratio{}
		for i := range rep.Servers[:n-1] {
			rep.Ratios[rep.Servers[i].Name] = newRatio(&rep.Servers[i], base)
		}
	}
	return rep
}

func serverReport(s server, sm *sample) ServerReport {
	done := sm.Done()
	r := ServerReport{Name: s.name, Addr: s.addr, Requests: done, Calls: sm.Calls, OK: sm.OK, Errors: sm.Errors,
		Unanswered: sm.Unanswered, Dropped: sm.Dropped, Reconnects: sm.Reconnects, Mismatched: sm.Mismatched, Malformed: sm.Malformed,
		Notifications: sm.Notifications, Failed: sm.Failed(), Elapsed: sm.Elapsed.Seconds(),
		ReqPerSec: math.Round(sm.Rate()), RoundReqPerS: sm.rounds}
	if m, ok := modeOf(s.name); ok && s.inProcess {
		r.Methods = m.String()
	}
	switch {
	case !s.inProcess:
	case s.name == "baseline":
		r.JSON = bench.JSONBuild
	case s.name == BaselineV2:
		r.JSON = "encoding/json/v2 + jsontext"
	}
	for j := range r.RoundReqPerS {
		r.RoundReqPerS[j] = math.Round(r.RoundReqPerS[j])
	}
	us := func(d time.Duration) float64 { return math.Round(float64(d)/10) / 100 } // µs, 2 decimals
	h := &sm.Latency
	r.Latency = Latency{us(h.Quantile(0.5)), us(h.Quantile(0.9)), us(h.Quantile(0.99)), us(h.Quantile(0.999)), us(h.Max())}
	if s.inProcess && done > 0 {
		per := func(v float64) *float64 { x := math.Round(v/float64(done)*100) / 100; return &x }
		r.CPUPerCall = per(float64(sm.usage.cpu))
		r.BytesPerCall = per(float64(sm.usage.allocBytes))
		r.AllocsPerCall = per(float64(sm.usage.allocObjects))
	}
	return r
}

// newRatio is j's figures over b's, to two decimals (0 where b's is 0).
func newRatio(j, b *ServerReport) *Ratio {
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
	return &Ratio{ReqPerSec: ratio(j.ReqPerSec, b.ReqPerSec), P50: ratio(j.Latency.P50, b.Latency.P50),
		P99: ratio(j.Latency.P99, b.Latency.P99), CPUPerCall: ratioP(j.CPUPerCall, b.CPUPerCall),
		BytesPerCall: ratioP(j.BytesPerCall, b.BytesPerCall), AllocsPerCall: ratioP(j.AllocsPerCall, b.AllocsPerCall)}
}
