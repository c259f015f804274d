package main

import (
	"context"
	"encoding/json"
	"github.com/jetrpc/jetrpc/bench"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestBenchJSON runs "jetrpc bench --duration 2s --json" end to end and
// checks the fields the README documents: by default, jetrpc with its demo
// methods registered three ways (--methods inline,default,typed), then the
// baseline.
func TestBenchJSON(t *testing.T) {
	noLeaks(t)
	svg := filepath.Join(t.TempDir(), "bench.svg")
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := run(ctx, []string{"bench", "--duration", "2s", "--json", "--svg", svg}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if stderr.String() != "" {
		t.Errorf("stderr not quiet off a terminal: %q", stderr.String())
	}
	var rep struct {
		Transport string  `json:"transport"`
		Framing   string  `json:"framing"`
		Conns     int     `json:"conns"`
		Pipeline  int     `json:"pipeline"`
		Duration  float64 `json:"duration_s"`
		Rounds    int     `json:"rounds"`
		Mix       string  `json:"mix"`
		Servers   []struct {
			Name                                                           string
			Methods                                                        string
			JSON                                                           string
			Addr                                                           string
			Requests, Calls, OK, Errors, Unanswered, Mismatched, Malformed int64
			Dropped, Reconnects, Notifications, Failed                     int64
			Elapsed                                                        float64            `json:"elapsed_s"`
			ReqPerSec                                                      float64            `json:"req_per_s"`
			Rounds                                                         []float64          `json:"round_req_per_s"`
			Latency                                                        map[string]float64 `json:"latency_us"`
			CPU                                                            *float64           `json:"cpu_ns_per_call"`
			Bytes                                                          *float64           `json:"alloc_bytes_per_call"`
			Allocs                                                         *float64           `json:"allocs_per_call"`
		} `json:"servers"`
		Ratio   map[string]float64            `json:"ratio"`
		Ratios  map[string]map[string]float64 `json:"ratios"`
		CPUNote string                        `json:"cpu_note"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("%v in:\n%s", err, stdout.String())
	}
	if rep.Transport != "tcp" || rep.Framing != "ndjson" || rep.Conns != 32 || rep.Pipeline != 16 || rep.Duration != 2 || rep.Rounds != 3 || rep.Mix != "small" {
		t.Errorf("header: %+v", rep)
	}
	var names []string
	for _, s := range rep.Servers {
		names = append(names, s.Name+":"+s.Methods)
		if s.Name == "baseline" && s.JSON != bench.JSONBuild {
			t.Errorf("baseline json %q, want %q", s.JSON, bench.JSONBuild)
		}
	}
	if got := strings.Join(names, " "); got != "jetrpc:inline jetrpc-default:default jetrpc-typed:typed baseline:" {
		t.Fatalf("servers (name:methods): %s", got)
	}
	for _, s := range rep.Servers {
		if s.OK == 0 || s.Failed != 0 || s.OK != s.Calls || s.Requests != s.OK || s.ReqPerSec <= 0 || len(s.Rounds) != 3 {
			t.Errorf("%s: %+v", s.Name, s)
		}
		for _, k := range []string{"p50", "p90", "p99", "p999", "max"} {
			if s.Latency[k] <= 0 {
				t.Errorf("%s: latency %s = %v", s.Name, k, s.Latency[k])
			}
		}
		if s.Latency["p50"] > s.Latency["p99"] || s.Latency["p99"] > s.Latency["max"] {
			t.Errorf("%s: latency out of order: %v", s.Name, s.Latency)
		}
		if s.CPU == nil || *s.CPU <= 0 || s.Bytes == nil || s.Allocs == nil {
			t.Errorf("%s: cpu %v bytes %v allocs %v", s.Name, s.CPU, s.Bytes, s.Allocs)
		}
	}
	for _, k := range []string{"req_per_s", "p50", "p99", "cpu_ns_per_call"} {
		if rep.Ratio[k] <= 0 {
			t.Errorf("ratio %s = %v", k, rep.Ratio[k])
		}
		for _, name := range []string{"jetrpc", "jetrpc-default", "jetrpc-typed"} {
			if rep.Ratios[name][k] <= 0 {
				t.Errorf("ratios[%s] %s = %v", name, k, rep.Ratios[name][k])
			}
		}
	}
	if rep.Ratio["req_per_s"] != rep.Ratios["jetrpc"]["req_per_s"] || len(rep.Ratios) != 3 {
		t.Errorf("ratio %v is not jetrpc's of %v", rep.Ratio, rep.Ratios)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "baseline") || !strings.Contains(string(b), "jetrpc-typed") {
		t.Errorf("svg: %v %.200s", err, b)
	}
}

// TestBenchMethods: --methods chooses the registrations measured, in its
// order, each a server and a row of the table; a bad list is a usage error,
// and so is --methods with --target.
func TestBenchMethods(t *testing.T) {
	noLeaks(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := []string{"bench", "--methods", "typed, default", "--conns", "2", "--pipeline", "4", "--duration", "400ms",
		"--rounds", "1", "--warmup=false"}
	if code := run(ctx, args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	var rows []string
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "jetrpc") && f[1] != "bench:" {
			rows = append(rows, f[0])
		}
	}
	want := "jetrpc-typed jetrpc-default jetrpc-typed/baseline jetrpc-default/baseline"
	if got := strings.Join(rows, " "); got != want {
		t.Errorf("rows %q, want %q, in:\n%s", got, want, out)
	}
	f := func(want string, args ...string) {
		t.Helper()
		var stdout, stderr syncBuffer
		if code := run(ctx, append([]string{"bench"}, args...), strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", args, code, stderr.String(), want)
		}
	}
	f("--methods fast: must be inline, default or typed", "--methods", "fast")
	f("--methods : must be inline, default or typed", "--methods", "")
	f("--methods inline,typed,inline: inline given twice", "--methods", "inline,typed,inline")
	f("--methods: for the in-process servers, not with --target", "--methods", "inline", "--target", "127.0.0.1:1")
}

// TestBenchTarget measures an external server over HTTP and prints the
// table; with --target there is one server and no ratio.
func TestBenchTarget(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	srv := nethttp.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	reqs := filepath.Join(t.TempDir(), "reqs.ndjson")
	os.WriteFile(reqs, []byte(`{"jsonrpc":"2.0","method":"sum","params":[1,2,3],"id":1}`+"\n"+`{"jsonrpc":"2.0","method":"get_data","id":"x"}`+"\n"), 0o644)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"bench", "--target", ln.Addr().String(), "--transport", "http", "--conns", "4", "--pipeline", "1",
		"--duration", "300ms", "--rounds", "1", "--requests", reqs}
	if code := run(ctx, args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "target") || strings.Contains(out, "jetrpc/baseline") || !strings.Contains(out, "mix file") {
		t.Errorf("table:\n%s", out)
	}
}

// TestBenchReconnect: "jetrpc bench --target --reconnect" against a TCP
// server that is replaced mid-run (a second one takes the port with
// SO_REUSEPORT, the first shuts down): every connection is dialled again
// and carries on, and the calls the first server closed on are counted as
// dropped, the only failures.
func TestBenchReconnect(t *testing.T) {
	noLeaks(t)
	rp := &netserver.ListenOptions{ReusePort: true}
	serve := func(addr string) (string, func()) {
		t.Helper()
		e := dispatch.New(nil)
		if err := demo.Register(e); err != nil {
			t.Fatal(err)
		}
		ln, err := netserver.Listen(context.Background(), addr, rp)
		if err != nil {
			t.Fatal(err)
		}
		srv := netserver.New(e, nil)
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		return ln.Addr().String(), func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			<-done
			e.Close()
		}
	}
	addr, stopFirst := serve("127.0.0.1:0")
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"bench", "--target", addr, "--conns", "4", "--pipeline", "8", "--duration", "1500ms",
			"--rounds", "1", "--warmup=false", "--reconnect", "--json"}, strings.NewReader(""), &stdout, &stderr)
	}()
	time.Sleep(400 * time.Millisecond)
	_, stopSecond := serve(addr)
	defer stopSecond()
	stopFirst()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d, stderr:\n%s", c, stderr.String())
	}
	var rep struct {
		Servers []struct {
			Calls, OK, Dropped, Reconnects, Failed int64
		}
	}
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || len(rep.Servers) != 1 {
		t.Fatalf("%v in:\n%s", err, stdout.String())
	}
	s := rep.Servers[0]
	if s.Reconnects < 4 || s.OK == 0 || s.OK+s.Dropped != s.Calls || s.Failed != s.Dropped {
		t.Errorf("%+v: want >= 4 reconnects, and every call answered or dropped", s)
	}
	if s.Dropped > 0 && !strings.Contains(stderr.String(), "dropped") {
		t.Errorf("stderr does not say calls were dropped: %q", stderr.String())
	}
}
