package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestBenchJSON runs "jetrpc bench --duration 2s --json" end to end and
// checks the fields the README documents.
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
		Ratio   map[string]float64 `json:"ratio"`
		CPUNote string             `json:"cpu_note"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout.String()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("%v in:\n%s", err, stdout.String())
	}
	if rep.Transport != "tcp" || rep.Framing != "ndjson" || rep.Conns != 32 || rep.Pipeline != 16 || rep.Duration != 2 || rep.Rounds != 3 || rep.Mix != "small" {
		t.Errorf("header: %+v", rep)
	}
	if len(rep.Servers) != 2 || rep.Servers[0].Name != "jetrpc" || rep.Servers[1].Name != "baseline" {
		t.Fatalf("servers: %+v", rep.Servers)
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
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "baseline") {
		t.Errorf("svg: %v %.200s", err, b)
	}
}

// TestBenchTarget measures an external server over HTTP and prints the
// table; with --target there is one server and no ratio.
func TestBenchTarget(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	srv := netserver.NewHTTP(e, nil)
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
