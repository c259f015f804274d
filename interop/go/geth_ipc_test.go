package interop

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// TestGethIPC runs go-ethereum's client over jetrpc serve --ipc PATH, as
// geth's own tools talk to its --ipcpath: rpc.Dial(path) dials the Unix
// socket, and the same calls, errors, batches, notifications, concurrent
// calls and subscriptions as over the other transports work. A second
// jetrpc serve on the same path fails with a clear error and exit 1, and
// the first keeps its socket.
func TestGethIPC(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jetrpc.ipc")
	s := startServer(t, "--ipc", path)
	deadline := time.Now().Add(startTimeout)
	for !strings.Contains(s.log.String(), "listening ipc "+path+"\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no listening ipc line; stderr:\n%s", s.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket file mode: %v %v", fi, err)
	}
	c, err := rpc.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Run("calls", func(t *testing.T) { testCalls(t, c) })
	t.Run("errors", func(t *testing.T) { testErrors(t, c) })
	t.Run("batch", func(t *testing.T) { testBatch(t, c) })
	t.Run("notify", func(t *testing.T) { testNotify(t, c, false) })
	t.Run("concurrent", func(t *testing.T) { testConcurrent(t, c) })
	t.Run("timeout", func(t *testing.T) { testTimeout(t, c) })
	t.Run("subscribe", func(t *testing.T) { testWSSubscribe(t, c) })

	t.Run("second server", func(t *testing.T) {
		cmd := exec.Command(jetrpcBin, "serve", "--tcp", "", "--http", "", "--ipc", path)
		done := make(chan struct{})
		var out []byte
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(stopTimeout):
			cmd.Process.Kill()
			<-done
			t.Fatal("the second server did not exit")
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "--ipc "+path+": another server is listening on this socket") {
			t.Fatalf("second server: %v\n%s", err, out)
		}
		equal(t, "subtract on the first server", call[int](t, c, "subtract", 42, 23), 19)
		// a fresh connection to the first server still works
		c2, err := rpc.Dial(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		equal(t, "subtract on a new connection", call[int](t, c2, "subtract", 1, 2), -1)
	})
}
