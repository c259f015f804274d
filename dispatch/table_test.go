package dispatch

import (
	"strconv"
	"testing"
)

func TestTable(t *testing.T) {
	var ms []*method
	names := []string{"", "a", "subtract", "sum", "rpc", "eth_getBalance", "eth_getBlockByNumber",
		"axxb", "ayyb", "azzb", "axyb"} // same length, first, middle and last byte: one probe chain
	for i := 0; i < 100; i++ {
		names = append(names, "m"+strconv.Itoa(i))
	}
	for _, n := range names {
		ms = append(ms, &method{name: n})
	}
	tb := newTable(ms)
	for _, n := range names {
		if m := tb.lookup([]byte(n)); m == nil || m.name != n {
			t.Fatalf("lookup(%q) = %v", n, m)
		}
	}
	for _, n := range []string{"b", "subtrac", "subtractt", "axzb", "m100", "Sum"} {
		if m := tb.lookup([]byte(n)); m != nil {
			t.Fatalf("lookup(%q) found %q", n, m.name)
		}
	}
	var empty table
	if empty.lookup([]byte("x")) != nil {
		t.Fatal("empty table found a method")
	}
}
