package jsontag

import "testing"

func TestTags(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{{"name", true}, {"a-b.c", true}, {"é1", true}, {"", false}, {"a\"b", false}, {"a,b", false}, {`a\b`, false}} {
		if got := Valid(c.s); got != c.want {
			t.Errorf("Valid(%q) = %v", c.s, got)
		}
	}
	if !HasOpt("omitempty,string", "string") || HasOpt("omitempty", "string") || HasOpt("", "x") {
		t.Error("HasOpt")
	}
}
