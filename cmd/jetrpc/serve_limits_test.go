package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestServeLimitFlags checks the limit flags: their defaults, how they map
// to the options (a timeout of 0 is none), and the errors for bad values.
func TestServeLimitFlags(t *testing.T) {
	parse := func(args ...string) (*serveConfig, string, error) {
		var stderr strings.Builder
		cfg, err := parseServe(args, &stderr)
		return cfg, stderr.String(), err
	}
	cfg, _, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	eo, so := cfg.limits.engineOptions(dispatch.Options{}), cfg.limits.serverOptions(netserver.Options{})
	if eo.MaxDepth != 1000 || eo.MaxBatchResponse != 16<<20 || eo.CallTimeout != 0 || eo.BatchFanOut != 256 ||
		eo.IdleWorkers != 16 {
		t.Errorf("default engine options %+v", eo)
	}
	if so.MaxInFlight != 256 || so.MaxPending != 4<<20 || so.ReadTimeout != 30*time.Second ||
		so.IdleTimeout != 5*time.Minute || so.WriteTimeout != 30*time.Second {
		t.Errorf("default server options %+v", so)
	}

	cfg, _, err = parse("--call-timeout", "250ms", "--read-timeout", "0", "--idle-timeout", "1h", "--write-timeout", "0s",
		"--max-inflight", "8", "--max-pending", "65536", "--max-depth", "64", "--max-batch-response", "1048576",
		"--batch-fanout", "16", "--idle-workers", "0")
	if err != nil {
		t.Fatal(err)
	}
	eo, so = cfg.limits.engineOptions(dispatch.Options{}), cfg.limits.serverOptions(netserver.Options{})
	if eo.MaxDepth != 64 || eo.MaxBatchResponse != 1<<20 || eo.CallTimeout != 250*time.Millisecond || eo.BatchFanOut != 16 ||
		eo.IdleWorkers != -1 {
		t.Errorf("engine options %+v", eo)
	}
	if so.MaxInFlight != 8 || so.MaxPending != 65536 || so.ReadTimeout >= 0 || so.IdleTimeout != time.Hour || so.WriteTimeout >= 0 {
		t.Errorf("server options %+v", so)
	}

	bad := func(want string, args ...string) {
		t.Helper()
		_, stderr, err := parse(args...)
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("%q: error %v, stderr %q; want %q", args, err, stderr, want)
		}
	}
	bad("--call-timeout -1s: must not be negative", "--call-timeout", "-1s")
	bad("--read-timeout -5ms: must not be negative", "--read-timeout", "-5ms")
	bad("--idle-timeout -1m0s: must not be negative", "--idle-timeout", "-1m")
	bad("--write-timeout -1s: must not be negative", "--write-timeout", "-1s")
	bad(`invalid value "soon" for flag -call-timeout`, "--call-timeout", "soon")
	bad(`invalid value "10" for flag -read-timeout`, "--read-timeout", "10")
	bad("--max-inflight 0: must be at least 1", "--max-inflight", "0")
	bad("--max-pending -1: must be at least 1", "--max-pending", "-1")
	bad("--max-depth 0: must be at least 1", "--max-depth", "0")
	bad("--max-batch-response 0: must be at least 1", "--max-batch-response", "0")
	bad("--batch-fanout 0: must be at least 1", "--batch-fanout", "0")
	bad("--idle-workers -1: must not be negative (0: none)", "--idle-workers", "-1")
	bad(`invalid value "big" for flag -max-inflight`, "--max-inflight", "big")
}

// TestServeCallTimeout runs the server in-process with --call-timeout and
// --read-timeout: a long sleep is answered -32003, a stalled frame closes
// its connection.
func TestServeCallTimeout(t *testing.T) {
	noLeaks(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--tcp", "127.0.0.1:0", "--http", "", "--call-timeout", "50ms",
			"--read-timeout", "200ms"}, strings.NewReader(""), &stdout, &stderr)
	}()
	addr := stderr.listening(t, "tcp")["tcp"]
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(nc, `{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":1}`+"\n")
	line, err := bufio.NewReader(nc).ReadString('\n')
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than 50ms"}}` + "\n"
	if err != nil || line != want {
		t.Errorf("got %q %v, want %q", line, err, want)
	}
	io.WriteString(nc, `{"jsonrpc":"2.0","method"`)
	start := time.Now()
	if _, err := io.Copy(io.Discard, nc); err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("a stalled frame: %v after %v, want the connection closed", err, time.Since(start))
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d, want 0; stderr:\n%s", c, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
