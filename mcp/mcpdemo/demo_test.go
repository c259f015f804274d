package mcpdemo_test

import (
	"errors"
	"regexp"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
)

// TestToolOrder: jetrpc serve --mcp registers the demo tools, then the
// conformance fixtures; tools/list answers in that order, so that what a
// user meets first are echo, add and countdown (docs/mcp.md lists them),
// and every fixture is still served.
func TestToolOrder(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	defer s.Close()
	if err := errors.Join(mcpdemo.Register(s), mcpdemo.RegisterConformance(s)); err != nil {
		t.Fatal(err)
	}
	out := s.Engine().Process(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	var names []string
	for _, m := range regexp.MustCompile(`\{"name":"([^"]+)"`).FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) < 30 {
		t.Fatalf("tools/list: %d tools: %s", len(names), out)
	}
	for i, want := range []string{"echo", "add", "countdown"} {
		if names[i] != want {
			t.Errorf("tool %d is %s, want %s (the demo tools first): %v", i, names[i], want, names)
		}
	}
	for _, want := range []string{"test_simple_text", "test_tool_with_progress", "test_reconnection"} {
		found := false
		for _, n := range names[3:] {
			found = found || n == want
		}
		if !found {
			t.Errorf("fixture %s not listed: %v", want, names)
		}
	}
}
