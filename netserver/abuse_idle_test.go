//go:build unix

package netserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// idleConns is how many idle connections TestAbuseIdleConns opens first,
// fewer when the open-files limit cannot be raised that far.
const idleConns = 10000

// Environment of the client process of TestAbuseIdleConns.
const (
	idleAddrEnv = "JETRPC_TEST_IDLE_ADDR"
	idleConnEnv = "JETRPC_TEST_IDLE_CONNS"
	idleHTTPEnv = "JETRPC_TEST_IDLE_HTTP"
)

// TestAbuseIdleConns opens 10,000 (then 2,000) connections that each make
// one call and then stay silent, and measures what the server holds per
// idle connection once they gave their buffers back: the growth of the heap
// and stacks in use, of the memory obtained from the OS and of the
// resident set, divided by the connections; with the connections parked
// (no goroutine each, Linux) and waiting on a goroutine each (parking off:
// the fallback elsewhere and for TLS). The connections live in a child
// process (this test binary, running TestIdleClientProcess), so that their
// client side is not counted. A well-behaved client keeps calling
// throughout.
func TestAbuseIdleConns(t *testing.T) {
	sizes := []int{idleConns, idleConns / 5}
	if raceEnabled { // the figures mean little there, and the bound is off
		sizes = sizes[1:]
	}
	for _, n := range sizes {
		for _, m := range waitModes {
			t.Run(fmt.Sprintf("conns=%d/wait=%s", n, m.name), func(t *testing.T) {
				// Parked (Linux): the connection's state; on a goroutine:
				// that and its 2 KiB stack. After the runs before it, new
				// goroutines start with larger stacks (the runtime starts
				// them at the average in use): the second goroutine run is
				// reported, not bounded; run it alone for its figure.
				limit := 4 << 10
				switch {
				case !m.off && runtime.GOOS == "linux":
					limit = 2 << 10
				case n != idleConns:
					limit = 0
				}
				measureIdle(t, n, m.off, float64(limit))
			})
		}
	}
}

// waitModes are the two ways an idle connection can wait: parked in the
// Server's poller (park.go; Linux), or on a goroutine of its own.
var waitModes = []struct {
	name string
	off  bool
}{{"parked", false}, {"goroutine", true}}

// measureIdle is TestAbuseIdleConns with n connections, parking off or not;
// each idle connection must hold at most limit bytes (heap and stacks;
// 0: no bound).
func measureIdle(t *testing.T, n int, off bool, limit float64) {
	if lim := raiseOpenFiles(t, n+200); lim < uint64(n+200) {
		n = int(lim) - 200
		t.Logf("open-files limit %d: using %d connections", lim, n)
	}
	var released atomic.Int32
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 50 * time.Millisecond
	s.parker.off = off
	s.testHookRelease = func(*conn) { released.Add(1) }
	ts := serveOn(t, s)
	p := probeTCP(t, ts.addr)

	before, rssBefore := heapAndStacks(), residentAfterFree()
	child := startIdleClients(t, ts.addr, n)
	waitForLong(t, "the connections to be open", func() bool { return ts.openConns() >= n })
	waitForLong(t, "the idle connections to release their buffers", func() bool { return int(released.Load()) >= n })
	// The goroutines that gave the buffers back end, small ones wait instead
	// (the sweeper ends many spells at once): the least of a few readings.
	after := heapAndStacks()
	for range 5 {
		time.Sleep(100 * time.Millisecond)
		if m := heapAndStacks(); m.HeapInuse+m.StackInuse < after.HeapInuse+after.StackInuse {
			after = m
		}
	}
	rssAfter := residentAfterFree()
	if f := os.Getenv("JETRPC_TEST_HEAPPROFILE"); f != "" {
		w, _ := os.Create(f)
		pprof.WriteHeapProfile(w)
		w.Close()
	}
	perConn := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) }
	inUse := perConn(after.HeapInuse+after.StackInuse, before.HeapInuse+before.StackInuse)
	rss := "n/a"
	if rssBefore > 0 && rssAfter > 0 {
		rss = fmt.Sprintf("%.0f", perConn(rssAfter, rssBefore))
	}
	t.Logf("%d idle connections: %.0f bytes each in use (heap %.0f + stacks %.0f), %.0f bytes each obtained from the OS (Sys), %s resident (RSS)",
		n, inUse, perConn(after.HeapInuse, before.HeapInuse), perConn(after.StackInuse, before.StackInuse),
		perConn(after.Sys, before.Sys), rss)
	if limit > 0 && inUse > limit && !raceEnabled {
		t.Errorf("an idle connection holds %.0f bytes, want at most %.0f", inUse, limit)
	}
	reportProbe(t, p, fmt.Sprintf("%d idle connections", n))

	child.stop(t)
	waitForLong(t, "the idle connections to close", func() bool { return ts.openConns() == 1 }) // the prober's
}

// residentAfterFree returns the process's resident set size after giving
// the memory not in use back to the OS, or 0 where it cannot be read.
func residentAfterFree() uint64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// TestAbuseIdleConnsHTTP measures the same for HTTPServer (fasthttp), with
// 2,000 keep-alive connections that made one request each. fasthttp keeps
// its per-connection state (about 16 KiB) while a connection is open; its
// ReduceMemoryUsage would bring that to about 5 KiB at the cost of an
// allocation per request, so it stays off and this is reported, not bounded.
func TestAbuseIdleConnsHTTP(t *testing.T) {
	n := idleConns / 5
	warmFasthttp()
	checkGoroutines(t)
	s := NewHTTPTest(newEngine(t), &Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != ErrServerClosed {
			t.Errorf("Serve: %v", err)
		}
	}()
	before := heapAndStacks()
	t.Setenv(idleHTTPEnv, "1")
	child := startIdleClients(t, ln.Addr().String(), n)
	time.Sleep(100 * time.Millisecond)
	after := heapAndStacks()
	perConn := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) }
	t.Logf("%d idle HTTP connections: %.0f bytes each in use (heap %.0f + stacks %.0f)",
		n, perConn(after.HeapInuse+after.StackInuse, before.HeapInuse+before.StackInuse),
		perConn(after.HeapInuse, before.HeapInuse), perConn(after.StackInuse, before.StackInuse))
	child.stop(t)
}

// heapAndStacks returns the memory statistics after the garbage collector
// ran a few times (stacks shrink one step per cycle).
func heapAndStacks() runtime.MemStats {
	for range 4 {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// waitForLong is waitFor with room for slow machines and the race detector.
func waitForLong(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(6 * testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// raiseOpenFiles raises the soft limit on open files towards want and
// returns the limit in force.
func raiseOpenFiles(t testing.TB, want int) uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	if rl.Cur < uint64(want) {
		rl.Cur = min(uint64(want), rl.Max)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			t.Logf("raising the open-files limit: %v", err)
			syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
		}
	}
	return rl.Cur
}

// idleChild is the client process of TestAbuseIdleConns.
type idleChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan error
}

// startIdleClients runs the client process and waits until its n
// connections have each had their call answered.
func startIdleClients(t *testing.T, addr string, n int) *idleChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleClientProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), idleAddrEnv+"="+addr, idleConnEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &idleChild{cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ready") || strings.HasPrefix(sc.Text(), "failed") {
				ready <- sc.Text()
			}
		}
		io.Copy(io.Discard, stdout)
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() { c.stop(t) })
	select {
	case line := <-ready:
		if line != "ready" {
			t.Fatalf("client process: %s", line)
		}
	case <-time.After(6 * testTimeout):
		t.Fatal("the client process did not get its connections ready")
	}
	return c
}

// stop ends the client process (closing its input makes it close its
// connections and exit) and waits for it.
func (c *idleChild) stop(t *testing.T) {
	if c.stdin == nil {
		return
	}
	c.stdin.Close()
	c.stdin = nil
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("client process: %v", err)
		}
	case <-time.After(testTimeout):
		c.cmd.Process.Kill()
		<-c.done
		t.Error("the client process did not exit")
	}
}

// TestIdleClientProcess is the client process of TestAbuseIdleConns: it is
// skipped unless run by it. It opens the connections, makes one call on
// each, prints "ready" and keeps them open until its input ends.
func TestIdleClientProcess(t *testing.T) {
	addr := os.Getenv(idleAddrEnv)
	if addr == "" {
		t.Skip("run by TestAbuseIdleConns")
	}
	n, _ := strconv.Atoi(os.Getenv(idleConnEnv))
	raiseOpenFiles(t, n+100)
	conns := make([]net.Conn, n)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	const dialers = 16
	for d := range dialers {
		wg.Go(func() {
			msg, end := frame.AppendFrame(nil, frame.NDJSON, []byte(subtractCall)), byte('\n')
			if os.Getenv(idleHTTPEnv) != "" {
				msg, end = []byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(len(subtractCall))+"\r\n\r\n"+subtractCall), '}'
			}
			buf := make([]byte, 512)
			for i := d; i < n && failed.Load() == nil; i += dialers {
				nc, err := net.DialTimeout("tcp", addr, testTimeout)
				if err == nil {
					nc.SetDeadline(time.Now().Add(6 * testTimeout))
					_, err = nc.Write(msg)
				}
				for got := 0; err == nil && (got == 0 || buf[got-1] != end); {
					var k int
					k, err = nc.Read(buf[got:])
					got += k
				}
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				conns[i] = nc
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		fmt.Println("failed:", *err)
	} else {
		fmt.Println("ready")
	}
	io.Copy(io.Discard, os.Stdin)
	for _, nc := range conns {
		if nc != nil {
			nc.Close()
		}
	}
}
