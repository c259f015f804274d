package a2a_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoMCP: an A2A server links no MCP server. The two protocols share
// only the event store (package streamstore); a2a importing mcp, directly
// or through another package, fails here.
func TestNoMCP(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "github.com/jetrpc/jetrpc/mcp" || strings.HasPrefix(pkg, "github.com/jetrpc/jetrpc/mcp/") {
			t.Errorf("a2a links %s", pkg)
		}
	}
}
