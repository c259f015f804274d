package compare

import (
	"bytes"
	"context"
	"github.com/jetrpc/jetrpc/bench"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
)

func testConfig(t *testing.T, transport string, framing frame.Kind) *Config {
	t.Helper()
	reqs, err := load.Mix("small,batch10")
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Transport: transport, Framing: framing, Conns: 2, Pipeline: 4, Duration: 400 * time.Millisecond,
		Rounds: 2, Mix: "small,batch10", Requests: reqs, Timeout: 5 * time.Second}
}

// TestRun compares jetrpc with the baseline on every transport and TCP
// framing: both answer every call, in every round.
func TestRun(t *testing.T) {
	f := func(transport string, framing frame.Kind) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rep, err := Run(ctx, testConfig(t, transport, framing), nil)
		if err != nil {
			t.Fatalf("%s %v: %v", transport, framing, err)
		}
		names := []string{"jetrpc", "baseline"}
		if bench.NewStdlibV2() != nil { // a GOEXPERIMENT=jsonv2 build has the v2 baseline too
			names = []string{"jetrpc", BaselineV2, "baseline"}
		}
		if len(rep.Servers) != len(names) || rep.Ratio == nil {
			t.Fatalf("%s %v: %+v", transport, framing, rep)
		}
		for i, name := range names {
			if rep.Servers[i].Name != name {
				t.Fatalf("%s %v: server %d is %s, want %s", transport, framing, i, rep.Servers[i].Name, name)
			}
		}
		if b := rep.Servers[len(names)-1]; b.JSON != bench.JSONBuild {
			t.Errorf("%s %v: baseline's json %q, want %q", transport, framing, b.JSON, bench.JSONBuild)
		}
		for _, s := range rep.Servers {
			if s.OK == 0 || s.OK != s.Calls || s.Failed != 0 || len(s.RoundReqPerS) != 2 || s.CPUPerCall == nil {
				t.Errorf("%s %v: %s: %+v", transport, framing, s.Name, s)
			}
		}
	}
	f(load.TCP, frame.NDJSON)
	f(load.TCP, frame.Header)
	f(load.TCP, frame.Len32)
	f(load.HTTP, frame.NDJSON)
	f(load.WS, frame.NDJSON)
}

// TestRunTarget measures one server by address: no ratio, no process costs.
func TestRunTarget(t *testing.T) {
	cfg := testConfig(t, load.TCP, frame.NDJSON)
	servers, stop, err := startServers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg.Target = servers[0].addr
	rep, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Servers; len(s) != 1 || s[0].Name != "target" || s[0].OK == 0 || s[0].CPUPerCall != nil || rep.Ratio != nil {
		t.Errorf("%+v", rep)
	}
}

// TestRunErrors: no server at the target, or a cancelled context, ends the
// run with an error that names the server.
func TestRunErrors(t *testing.T) {
	cfg := testConfig(t, load.TCP, frame.NDJSON)
	cfg.Target = "127.0.0.1:1"
	if _, err := Run(context.Background(), cfg, nil); err == nil || !strings.HasPrefix(err.Error(), "target: ") {
		t.Errorf("no server: %v", err)
	}
	cfg.Target = ""
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cfg, nil); err == nil {
		t.Error("cancelled: no error")
	}
}

func TestReadUsage(t *testing.T) {
	before := readUsage()
	var keep [][]byte
	for i := range 1000 {
		keep = append(keep, make([]byte, 100+i))
	}
	d := readUsage().sub(before)
	// runtime/metrics counts what the per-P caches have handed in: most, not all.
	if d.allocObjects == 0 || d.allocBytes < 100*1000 || d.cpu < 0 || len(keep) != 1000 {
		t.Errorf("usage over 1000 allocations: %+v", d)
	}
}

func TestShowProgress(t *testing.T) {
	showProgress(nil, "x", new(atomic.Int64))() // nothing to show
	var out bytes.Buffer
	var done atomic.Int64
	done.Store(42)
	stop := showProgress(&out, "jetrpc round 1/3", &done)
	time.Sleep(300 * time.Millisecond)
	stop()
	if got := out.String(); !strings.Contains(got, "jetrpc round 1/3: 42 calls, ") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("progress %q", got)
	}
}
