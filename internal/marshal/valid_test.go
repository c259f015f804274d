package marshal

import (
	"math/rand/v2"
	"testing"
)

// TestAppendValid: AppendValid writes what compact writes for valid input.
func TestAppendValid(t *testing.T) {
	for _, in := range []string{
		`1`, ` 1 `, `"a b"`, `[]`, `[ ]`, `{ "a" : [ 1 , 2 ] , "b\"  c" : "\\" }`,
		"[\n\t1,\r\n\"x y\\\" z\"\n]", `{"a":{"b":{"c":[true,false,null]}}}`, `"\\\\"`, ` "\\" `,
		// Words of eight bytes: strings, escapes and whitespace across their edges.
		`["abcdefg h","ijklmnop"  ,  "q"]`, `{"abcdef\"":1, "x":"\\"   ,"y":[ 1 ]}`,
		`[1234567,"\\","a b c d e f g h i j",    true]`, `"0123456\\" `, `["0123456\"", 1]`,
		`["       ", "        ",  "\u00e9 \u00e9 "]`, `{"items":[{"id":1,"name":"item \u00e9 name","price":12.5}]}`,
		"[1,\n2,\n3,\n4,\n5,\n6,\n7,\n8]", `[{"a":"b"},{"c" :"d"} ,{"e":"f"}]`,
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

// TestAppendValidRandom: random valid documents, with whitespace and
// escapes at every offset of the eight-byte words, compact as compact does.
func TestAppendValidRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ws := []string{"", "", " ", "\n", "\t ", "\r\n  "}
	strs := []string{`"a"`, `" "`, `"\\"`, `"\""`, `"\\\\"`, `"a\"b c"`, `"\u00e9 x"`, `"        "`, `"\\\""`, `""`,
		`"\\\\\\\""`, `"ab\\"`, `"\u00e9\n"`, `"x\"\"\"y"`, `"\\ \\"`}
	var gen func(b []byte, depth int) []byte
	gen = func(b []byte, depth int) []byte {
		b = append(b, ws[r.IntN(len(ws))]...)
		switch k := r.IntN(6); {
		case depth > 3 || k < 2:
			b = append(b, strs[r.IntN(len(strs))]...)
		case k == 2:
			b = append(b, "-12.5e3"[:1+r.IntN(7)]...)
			if b[len(b)-1] == '-' || b[len(b)-1] == '.' || b[len(b)-1] == 'e' {
				b = append(b, '1')
			}
		case k == 3:
			b = append(b, '[')
			for i, n := 0, r.IntN(4); i < n; i++ {
				if i > 0 {
					b = append(b, ws[r.IntN(len(ws))]+","...)
				}
				b = gen(b, depth+1)
			}
			b = append(b, ws[r.IntN(len(ws))]+"]"...)
		default:
			b = append(b, '{')
			for i, n := 0, r.IntN(4); i < n; i++ {
				if i > 0 {
					b = append(b, ws[r.IntN(len(ws))]+","...)
				}
				b = append(b, ws[r.IntN(len(ws))]...)
				b = append(b, strs[r.IntN(len(strs))]...)
				b = append(b, ws[r.IntN(len(ws))]+":"...)
				b = gen(b, depth+1)
			}
			b = append(b, ws[r.IntN(len(ws))]+"}"...)
		}
		return append(b, ws[r.IntN(len(ws))]...)
	}
	for range 20000 {
		in := gen(nil, 0)
		want, ok := compact(nil, in)
		if !ok {
			t.Fatalf("compact(%q) failed: the generator wrote invalid JSON", in)
		}
		if got := AppendValid(nil, in); string(got) != string(want) {
			t.Fatalf("AppendValid(%q) = %q, want %q", in, got, want)
		}
	}
}
