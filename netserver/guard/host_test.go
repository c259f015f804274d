package guard_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/netserver/guard"
)

func TestHostPolicy(t *testing.T) {
	p, err := guard.ParseHostPolicy("rpc.example.com, Node.Example:8545")
	if err != nil {
		t.Fatal(err)
	}
	f := func(host string, want bool) {
		t.Helper()
		if got := p.Allow(host); got != want {
			t.Errorf("Allow(%q) = %v, want %v", host, got, want)
		}
	}
	f("localhost", true)
	f("localhost:8080", true)
	f("LocalHost.:1", true)
	f("127.0.0.1", true)
	f("127.0.0.1:8080", true)
	f("10.1.2.3:80", true)
	f("[::1]:8080", true)
	f("[::1]", true)
	f("::1", true)
	f("rpc.example.com", true)
	f("RPC.example.com:9999", true)
	f("rpc.example.com.", true)
	f("node.example", true) // the listed port is ignored too
	f("", true)             // no Host header: not a browser
	f("evil.example", false)
	f("evil.example:8080", false)
	f("example.com", false)
	f("sub.rpc.example.com", false)
	f("localhost.evil.example", false)
	f("127.0.0.1.evil.example", false)
	f("[::1", false)
	f("1.2.3.4.5", false)

	var none *guard.HostPolicy
	if !none.Allow("evil.example") {
		t.Error("a nil policy checks nothing")
	}
	star, _ := guard.ParseHostPolicy("*")
	if !star.Allow("evil.example") {
		t.Error(`"*" allows every host`)
	}
	empty, _ := guard.ParseHostPolicy("")
	if empty.Allow("rpc.example.com") || !empty.Allow("localhost:1") {
		t.Error("an empty list allows localhost and IP literals only")
	}
	for _, bad := range []string{"http://x", "a/b", "[::1", "*.example.com", "a b"} {
		if _, err := guard.NewHostPolicy(bad); err == nil {
			t.Errorf("NewHostPolicy(%q): no error", bad)
		}
	}
}
