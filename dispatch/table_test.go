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
	// Every length to 24, a byte different at every place, each name
	// held three ways: alone (its capacity its length), inside a larger
	// buffer with other bytes after it, and at the very end of one (no
	// byte of another may count).
	ms, names = nil, nil
	for n := 0; n <= 24; n++ {
		name := make([]byte, n)
		for i := range name {
			name[i] = byte('a' + (i*7+n)%26)
		}
		names = append(names, string(name))
		ms = append(ms, &method{name: string(name)})
	}
	tb = newTable(ms)
	held := func(n string) [][]byte {
		buf := []byte("\"" + n + "\",\"params\":[]}")
		end := make([]byte, 8+len(n))
		copy(end[8:], n)
		return [][]byte{[]byte(n)[:len(n):len(n)], buf[1 : 1+len(n)], end[8:]}
	}
	for _, n := range names {
		for _, b := range held(n) {
			if m := tb.lookup(b); m == nil || m.name != n {
				t.Fatalf("lookup(%q, cap %d) = %v", n, cap(b), m)
			}
		}
		for i := range len(n) {
			other := []byte(n)
			other[i] ^= 0x20
			for _, b := range held(string(other)) {
				if m := tb.lookup(b); m != nil {
					t.Fatalf("lookup(%q, cap %d) found %q", b, cap(b), m.name)
				}
			}
		}
		for _, b := range held(n + "x") {
			if m := tb.lookup(b[:len(b)-1]); m == nil || m.name != n {
				t.Fatalf("lookup(%q) of a longer name's prefix = %v", n, m)
			}
		}
	}

	var empty table
	if empty.lookup([]byte("x")) != nil {
		t.Fatal("empty table found a method")
	}
}
