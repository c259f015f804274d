package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// proc is a server running in a child process.
type proc struct {
	cmd   *exec.Cmd
	addr  string // TCP listener
	admin string // admin listener, when asked for
}

// start runs bin with args and waits until it printed "listening tcp ADDR"
// (and "listening admin ADDR" when admin), on stderr.
func start(ctx context.Context, bin string, admin bool, args ...string) (*proc, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd}
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			for i := 0; i+2 < len(f); i++ {
				if f[i] == "listening" && f[i+1] == "tcp" && p.addr == "" {
					p.addr = f[i+2]
				}
				if f[i] == "listening" && f[i+1] == "admin" && p.admin == "" {
					p.admin = f[i+2]
				}
			}
			if p.addr != "" && (!admin || p.admin != "") && found != nil {
				found <- nil
				found = nil
			}
		}
		if found != nil {
			found <- errors.New(bin + ": exited before listening")
		}
	}()
	select {
	case err = <-found:
	case <-time.After(10 * time.Second):
		err = errors.New(bin + ": not listening after 10 s")
	}
	if err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// stop ends the process (SIGTERM, then SIGKILL after 10 s) and waits.
func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// usage is a process's CPU time so far and its resident memory.
type usage struct {
	cpu time.Duration
	rss int64
}

// clockTick is the unit of /proc/PID/stat's times (getconf CLK_TCK).
const clockTick = 10 * time.Millisecond

// read reads p's usage from /proc.
func (p *proc) read() (usage, error) {
	pid := p.cmd.Process.Pid
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return usage{}, err
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return usage{}, errors.New("short /proc stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14: utime
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15: stime
	u := usage{cpu: time.Duration(ut+st) * clockTick}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return u, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			u.rss = kb << 10
		}
	}
	return u, nil
}

// serveLines is the line server's process: "scale serve-lines", or
// "scale serve-lines-raw" with raw system calls.
func serveLines(raw bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "listening tcp", ln.Addr())
	s := &bench.LineServer{Handle: bench.EchoLine([]byte("19")), Raw: raw}
	go func() {
		c := make(chan os.Signal, 1)
		signalNotify(c)
		<-c
		s.Close()
	}()
	s.Serve(ln)
}

// serveMode starts the argument that makes this program serve jetrpc:
// "scale serve-jetrpc-default" (see serveJetrpc).
const serveMode = "serve-jetrpc-"

// serveJetrpc is a jetrpc server's process with the demo methods
// registered the way mode says (demo.ParseMode): netserver over TCP with
// its defaults, as `jetrpc serve --tcp` without the options, until SIGTERM.
func serveJetrpc(mode string) {
	m, err := demo.ParseMode(mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	e := dispatch.New(nil)
	if err := demo.RegisterAs(e, m); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "listening tcp", ln.Addr())
	srv := netserver.New(e, nil)
	go func() {
		c := make(chan os.Signal, 1)
		signalNotify(c)
		<-c
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, netserver.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
