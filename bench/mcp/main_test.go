package mcpbench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bins are the servers the tests run: jetrpc built from this tree, and the
// two peers of this module.
var bins = map[string]string{}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "jetrpc-mcpbench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for kind, b := range map[string][2]string{KindJetRPC: {"../..", "./cmd/jetrpc"},
		KindGoSDK: {".", "./cmd/gosdkserver"}, KindMCPGo: {".", "./cmd/mcpgoserver"}} {
		bins[kind] = filepath.Join(dir, kind)
		cmd := exec.Command("go", "build", "-o", bins[kind], b[1])
		cmd.Dir, cmd.Stdout, cmd.Stderr = b[0], os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b[1], err)
			return 1
		}
	}
	return m.Run()
}

// start runs a server of kind on version for the test.
func start(t *testing.T, kind, version string) *Proc {
	t.Helper()
	p, err := Start(Spec{Name: kind, Kind: kind, Bin: bins[kind]}, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	return p
}
