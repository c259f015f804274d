package main

// NOTE: helpers of the CLI tests: a goroutine-safe stderr buffer that can
// wait for the "listening" lines, the built binary, and vector exchanges over
// a framed stream (TCP, stdio) and over HTTP.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/vectors"
	"github.com/valyala/fasthttp"
)

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listening waits for the "listening tcp ADDR" and "listening http ADDR"
// lines and returns the addresses by kind.
func (s *syncBuffer) listening(t *testing.T, kinds ...string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		addrs := map[string]string{}
		for line := range strings.Lines(s.String()) {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "listening" {
				addrs[f[1]] = f[2]
			}
		}
		if len(addrs) == len(kinds) {
			return addrs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening lines for %v; stderr:\n%s", kinds, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noLeaks fails the test if, after its cleanups, the number of goroutines
// does not come back to what it is now within a bounded poll.
func noLeaks(t *testing.T) {
	t.Helper()
	var h fasthttp.ResponseHeader
	h.AppendBytes(nil) // starts fasthttp's process-wide date refresher now
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for n := runtime.NumGoroutine(); n > before; n = runtime.NumGoroutine() {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// jetrpcBinary builds the command once per test run and returns its path.
func jetrpcBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary with")
	}
	binOnce.Do(func() {
		if binDir, binError = os.MkdirTemp("", "jetrpc-cli-test"); binError != nil {
			return
		}
		binPath = filepath.Join(binDir, "jetrpc")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, goTool, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binError = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// process is the running binary.
type process struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error // Wait's result
}

// startBinary starts the binary with args and kills it when the test ends
// if it is still running.
func startBinary(t *testing.T, stdin io.Reader, stdout io.Writer, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(jetrpcBinary(t), args...), stderr: new(syncBuffer), done: make(chan error, 1)}
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = stdin, stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("stderr of jetrpc:\n%s", p.stderr.String())
		}
	})
	return p
}

// exit waits for the process to end and returns its exit code.
func (p *process) exit(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("jetrpc did not exit")
		return -1
	}
}

const sentinel = `{"jsonrpc":"2.0","method":"echo","params":["end"],"id":"sentinel"}`

// streamVectors sends every spec vector, each followed by a sentinel call,
// as frames of kind on w, and checks what comes back on r before the
// sentinel's answer (responses may come in any order).
func streamVectors(t *testing.T, r io.Reader, w io.Writer, kind frame.Kind) {
	t.Helper()
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	fr := frame.NewReader(r, kind, 0)
	for _, v := range vs {
		out := frame.AppendFrame(nil, kind, []byte(v.Request))
		if _, err := w.Write(frame.AppendFrame(out, kind, []byte(sentinel))); err != nil {
			t.Fatalf("%s: write: %v", v.Name, err)
		}
		want := 1
		if v.NoResponse() {
			want = 0
		}
		var got [][]byte
		for seen := false; !seen || len(got) < want; {
			f, err := fr.Next()
			switch {
			case err != nil:
				t.Fatalf("%s: read: %v", v.Name, err)
			case bytes.Contains(f, []byte(`"id":"sentinel"`)):
				seen = true
			default:
				got = append(got, bytes.Clone(f))
			}
		}
		if len(got) > want {
			t.Errorf("%s: %d responses: %q", v.Name, len(got), got)
			continue
		}
		if err := v.Check(bytes.Join(got, nil)); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}

// httpVectors posts every spec vector to url.
func httpVectors(t *testing.T, url string) {
	t.Helper()
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, v := range vs {
		resp, err := client.Post(url, "application/json", strings.NewReader(v.Request))
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantStatus := http.StatusOK
		if v.NoResponse() {
			wantStatus = http.StatusNoContent
		}
		if err != nil || resp.StatusCode != wantStatus {
			t.Errorf("%s: got %d %v, want %d", v.Name, resp.StatusCode, err, wantStatus)
		}
		if err := v.Check(body); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}
