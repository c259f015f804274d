package interop

// The jetrpc server under test is the real binary, started as a user starts
// it: "jetrpc serve" on free loopback ports, its listening lines read from
// stderr, stopped with SIGTERM.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	startTimeout = 30 * time.Second // the binary prints its listening lines
	stopTimeout  = 15 * time.Second // SIGTERM to exit (the server's shutdown grace is 10s)
	callTimeout  = 10 * time.Second // any one test step against the server
)

// jetrpcBin is the binary under test: $JETRPC_BIN, or one TestMain builds
// from the module root (../..).
var jetrpcBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if jetrpcBin = os.Getenv("JETRPC_BIN"); jetrpcBin == "" {
		dir, err := os.MkdirTemp("", "jetrpc-interop-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "interop:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		jetrpcBin = filepath.Join(dir, "jetrpc")
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			fmt.Fprintln(os.Stderr, "interop:", err)
			return 1
		}
		build := exec.Command("go", "build", "-o", jetrpcBin, "github.com/jetrpc/jetrpc/cmd/jetrpc")
		build.Dir = root
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "interop: building jetrpc:", err)
			return 1
		}
	}
	return m.Run()
}

// server is one running "jetrpc serve".
type server struct {
	TCP, HTTP string // the bound addresses
	cmd       *exec.Cmd
	log       syncBuffer    // everything the server wrote to stderr
	eof       chan struct{} // closed when stderr has been read to its end
}

// startServer runs "jetrpc serve --tcp 127.0.0.1:0 --http 127.0.0.1:0" plus
// args and waits for its listening lines. t.Cleanup stops it with SIGTERM
// and checks it exits 0 (graceful shutdown), killing it if it does not
// within stopTimeout.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	return startCommand(t, "serve", args...)
}

// startCommand is startServer for another command with serve's listeners
// ("proxy").
func startCommand(t testing.TB, command string, args ...string) *server {
	t.Helper()
	s := &server{eof: make(chan struct{})}
	s.cmd = exec.Command(jetrpcBin, append([]string{command, "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0"}, args...)...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16) // listening lines; closed at the end of stderr
	go func() {
		defer close(s.eof)
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.log.WriteString(line + "\n")
			if strings.HasPrefix(line, "listening ") {
				select {
				case lines <- line:
				default: // nobody waits for more than two
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // a line too long for the scanner
	}()
	t.Cleanup(func() { s.stop(t) })

	timeout := time.After(startTimeout)
	for s.TCP == "" || s.HTTP == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("jetrpc serve ended before listening; stderr:\n%s", s.log.String())
			}
			switch f := strings.Fields(line); {
			case len(f) == 3 && f[1] == "tcp":
				s.TCP = f[2]
			case len(f) == 3 && f[1] == "http":
				s.HTTP = f[2]
			default:
				t.Fatalf("unexpected listening line %q", line)
			}
		case <-timeout:
			t.Fatalf("no listening lines within %v; stderr:\n%s", startTimeout, s.log.String())
		}
	}
	return s
}

// stop sends SIGTERM and waits for a graceful exit (code 0). stderr is
// read to its end before cmd.Wait, which closes the pipe.
func (s *server) stop(t testing.TB) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.eof:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.eof
		t.Errorf("jetrpc serve still running %v after SIGTERM, killed", stopTimeout)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("jetrpc serve after SIGTERM: %v (want exit status 0)", err)
	}
	if t.Failed() {
		t.Logf("jetrpc serve stderr:\n%s", s.log.String())
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ctx returns a context bounded by callTimeout, cancelled at the end of t.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), callTimeout)
	t.Cleanup(cancel)
	return c
}
