package marshal

import "testing"

// TestAppendValid: AppendValid writes what compact writes for valid input.
func TestAppendValid(t *testing.T) {
	for _, in := range []string{
		`1`, ` 1 `, `"a b"`, `[]`, `[ ]`, `{ "a" : [ 1 , 2 ] , "b\"  c" : "\\" }`,
		"[\n\t1,\r\n\"x y\\\" z\"\n]", `{"a":{"b":{"c":[true,false,null]}}}`, `"\\\\"`, ` "\\" `,
	} {
		want, ok := compact([]byte("x"), []byte(in))
		if !ok {
			t.Fatalf("compact(%q) failed", in)
		}
		if got := AppendValid([]byte("x"), []byte(in)); string(got) != string(want) {
			t.Errorf("AppendValid(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzAppendValid: for every input compact accepts, AppendValid writes the same bytes.
func FuzzAppendValid(f *testing.F) {
	for _, s := range []string{`1`, ` [ 1 , "a b" ] `, `{"a" : "\" "}`, "[\n]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, ok := compact(nil, in)
		if !ok {
			return
		}
		if got := AppendValid(nil, in); string(got) != string(want) {
			t.Fatalf("AppendValid(%q) = %q, want %q", in, got, want)
		}
	})
}
