package bytesconv

import "testing"

func TestOffsetWithin(t *testing.T) {
	in := []byte(`{"id":12,"params":[1,2]}`)
	f := func(lo, hi int) {
		t.Helper()
		sub := in[lo:hi]
		if off, ok := Offset(sub, in); !ok || off != lo {
			t.Errorf("Offset(in[%d:%d]) = %d, %v; want %d, true", lo, hi, off, ok, lo)
		}
		if off := Within(sub, in); off != lo {
			t.Errorf("Within(in[%d:%d]) = %d, want %d", lo, hi, off, lo)
		}
	}
	f(0, len(in))
	f(6, 8)
	f(19, 24)
	if _, ok := Offset([]byte("12"), in); ok {
		t.Error("Offset of bytes outside in reported true")
	}
}
