package interop

// The agents under test are real processes: the jetrpc binary as "jetrpc
// serve --stdio --acp" ($JETRPC_BIN, or built here from the repository),
// and for the measurements the same echo written on acp-go-sdk
// (./sdkagent, built here).

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

const stepTimeout = 60 * time.Second // any one step against an agent

var jetrpcBin, sdkAgentBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "jetrpc-interop-acp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := func(out, pkg, in string) error {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = in, os.Stderr, os.Stderr
		return cmd.Run()
	}
	if jetrpcBin = os.Getenv("JETRPC_BIN"); jetrpcBin == "" {
		jetrpcBin = filepath.Join(dir, "jetrpc")
		if err := build(jetrpcBin, "./cmd/jetrpc", filepath.Join("..", "..")); err != nil {
			fmt.Fprintln(os.Stderr, "interop: building jetrpc:", err)
			return 1
		}
	}
	sdkAgentBin = filepath.Join(dir, "sdkagent")
	if err := build(sdkAgentBin, "./sdkagent", "."); err != nil {
		fmt.Fprintln(os.Stderr, "interop: building sdkagent:", err)
		return 1
	}
	return m.Run()
}

// agentProc is a running agent process.
type agentProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *lockedBuffer
}

// startAgent starts bin with args; the test's cleanup closes its stdin and
// checks that it exits 0 (killing it after 15 s).
func startAgent(t testing.TB, bin string, args ...string) *agentProc {
	t.Helper()
	p := &agentProc{cmd: exec.Command(bin, args...), stderr: new(lockedBuffer)}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stdin.Close()
		done := make(chan error, 1)
		go func() { io.Copy(io.Discard, p.stdout); done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s exited with %v", filepath.Base(bin), err)
			}
		case <-time.After(15 * time.Second):
			p.cmd.Process.Kill()
			<-done
			t.Errorf("%s did not exit when its stdin closed; killed", filepath.Base(bin))
		}
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", filepath.Base(bin), p.stderr.String())
		}
	})
	return p
}
