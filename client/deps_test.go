package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoHTTP: a program that imports package client to dial TCP or
// stdio links no HTTP library: neither fasthttp, fasthttp/websocket nor
// net/http (`go list -deps` of testdata/tcponly).
func TestLinksNoHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "./testdata/tcponly").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/jetrpc/jetrpc/client\n") {
		t.Fatalf("go list -deps: %d packages, without the client?\n%s", len(deps), out)
	}
	for _, p := range deps {
		if strings.Contains(p, "fasthttp") || p == "net/http" || strings.HasPrefix(p, "net/http/") ||
			strings.Contains(p, "websocket") {
			t.Errorf("a TCP-only client user links %s", p)
		}
	}
}
