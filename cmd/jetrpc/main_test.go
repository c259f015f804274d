package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRunUsage checks the exit codes and messages of bad command lines.
func TestRunUsage(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	f := func(wantCode int, wantOut, wantErr string, args ...string) {
		t.Helper()
		var stdout, stderr syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
		if code != wantCode || !strings.Contains(stdout.String(), wantOut) || !strings.Contains(stderr.String(), wantErr) {
			t.Errorf("jetrpc %q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				args, code, stdout.String(), stderr.String(), wantCode, wantOut, wantErr)
		}
	}
	f(2, "", usage) // no arguments
	f(0, usage, "", "help")
	f(2, "", `unknown command "frob"`, "frob")
	f(2, "", "--conns 0: must be 1..10000", "bench", "--conns", "0")
	f(2, "", "--framing auto: must be ndjson, header or len32", "bench", "--framing", "auto")
	f(2, "", `unknown case "nope"`, "bench", "--mix", "small,nope")
	f(0, "", "-pipeline int", "bench", "-h")
	f(2, "", "--reconnect: for tcp and ws", "bench", "--transport", "http", "--reconnect")
	f(2, "", `invalid boolean value "nah" for -warmup`, "bench", "--warmup=nah")
	f(2, "", "jetrpc: call: missing METHOD", "call")
	f(0, "", "-max-message BYTES", "serve", "-h")
	f(2, "", `--framing: frame: unknown framing "foo"`, "serve", "--framing", "foo")
	f(2, "", "--max-message -1: must be at least 1", "serve", "--max-message", "-1")
	f(2, "", "--max-message 0: must be at least 1", "serve", "-max-message=0")
	f(2, "", "--max-batch 0: must be at least 1", "serve", "--max-batch", "0")
	f(2, "", "--workers -2: must be at least 0", "serve", "--workers", "-2")
	f(2, "", "--max-conns -1: must be at least 0", "serve", "--max-conns", "-1")
	f(2, "", `invalid value "lots" for flag -max-message`, "serve", "--max-message", "lots")
	f(2, "", "flag provided but not defined: -frob", "serve", "--frob")
	f(2, "", `--tcp "nonsense": address nonsense: missing port in address`, "serve", "--tcp", "nonsense")
	f(2, "", `--http "127.0.0.1:99999"`, "serve", "--http", "127.0.0.1:99999")
	f(2, "", `unexpected argument "extra"`, "serve", "--tcp", "", "extra")
	f(1, "", "jetrpc serve: --tcp: listen tcp "+busy.Addr().String(), "serve", "--tcp", busy.Addr().String(), "--http", "")
	f(1, "", "jetrpc serve: --http: listen tcp "+busy.Addr().String(), "serve", "--tcp", "127.0.0.1:0", "--http", busy.Addr().String())
}

// TestRunServe runs the server in-process on free ports, asks it once over
// HTTP and stops it by cancelling the context.
func TestRunServe(t *testing.T) {
	noLeaks(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr)
	}()
	addrs := stderr.listening(t, "tcp", "http")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Post("http://"+addrs["http"], "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
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
	if stdout.String() != "" {
		t.Errorf("stdout: %q, want nothing", stdout.String())
	}
}
