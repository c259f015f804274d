//go:build goexperiment.simd && amd64

package scan_test

// The SIMD lanes (simd_amd64.go) against the portable code: the same answer, offset, code
// and escape flag on every input, through the scanner and through decode.Parser.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/scan"
	"github.com/jetrpc/jetrpc/internal/scan/shapes"
)

// answers is everything the scanner and decode say about data.
type answers struct {
	valid, validShallow bool
	whole, whole3       [2]int // offset, code
	lax                 [3]int // offset, code, BadUTF8
	strs                [][4]int
	parse               string
}

func answer(data []byte) (a answers) {
	a.valid, a.validShallow = scan.Valid(data, 0), scan.Valid(data, 3)
	var s scan.Scanner
	s.SetLimit(0)
	i, c := s.Whole(data)
	a.whole = [2]int{i, int(c)}
	s.SetLimit(3)
	i, c = s.Whole(data)
	a.whole3 = [2]int{i, int(c)}
	s.SetLimit(0)
	s.SetLax()
	i, c = s.Whole(data)
	a.lax = [3]int{i, int(c), b2i(s.BadUTF8())}
	// Every string token that could start at a quote, strict and lax.
	for k, n := 0, 0; k < len(data) && n < 64; k++ {
		if data[k] != '"' {
			continue
		}
		n++
		end, esc, c := scan.String(data, k)
		lend, lesc, lc := scan.StringLax(data, k)
		a.strs = append(a.strs, [4]int{end, b2i(esc), int(c), 0}, [4]int{lend, b2i(lesc), int(lc), 1})
	}
	var p decode.Parser
	m, err := p.Parse(data)
	if err != nil {
		a.parse = "error: " + err.Error()
	} else {
		a.parse = describe(m) + describeBatch(p.Batch())
	}
	return a
}

func describeBatch(ms []decode.Message) string {
	var b strings.Builder
	for k := range ms {
		b.WriteString(describe(&ms[k]))
	}
	return b.String()
}

func describe(m *decode.Message) string {
	return string(rune('0'+m.Kind)) + string(rune('0'+m.Reason)) + "|" + string(m.Method) + "|" + string(m.ID) +
		"|" + string(m.Params) + "|" + string(m.Result) + "|" + string(m.Error) + "|" + string(m.Meta) + ";"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// same checks that the portable code and every SIMD level the CPU has answer alike on data.
func same(t *testing.T, data []byte) {
	t.Helper()
	scan.SetSIMD(scan.Portable)
	want := answer(data)
	checkSpaced(t, data, true)
	defer scan.SetBlockAll(scan.SetBlockAll(false))
	for _, level := range []int{scan.AVX2, scan.AVX512} {
		if _, now := scan.SetSIMD(level); now != level {
			continue
		}
		for _, all := range []bool{false, true} { // blocks on their masks as walk picks them, and all it may
			scan.SetBlockAll(all)
			if got := answer(data); !equal(got, want) {
				t.Fatalf("SIMD level %d (every block on its masks: %v) and portable differ on %.300q:\nsimd     %.2000v\nportable %.2000v",
					level, all, data, got, want)
			}
			checkSpaced(t, data, false)
		}
	}
}

// checkSpaced checks Scanner.Spaced on the container data starts with, and
// Message.ParamsCompact on what decode finds in data, against the reference (HasSpace):
// exactly (the portable code), or only never compact when the value holds whitespace
// between tokens (the SIMD lane, which may count a block it is unsure of).
func checkSpaced(t *testing.T, data []byte, exact bool) {
	t.Helper()
	var s scan.Scanner
	s.SetLimit(0)
	if i := scan.SkipWS(data, 0); i < len(data) && (data[i] == '{' || data[i] == '[') {
		if end, c := s.Composite(data, i, 0); c == scan.OK {
			if got, ref := s.Spaced(), scan.HasSpace(data[i:end]); got != ref && (exact || !got) {
				t.Fatalf("Spaced() = %v, reference %v (exact %v) on %q", got, ref, exact, data)
			}
		}
	}
	var p decode.Parser
	m, err := p.Parse(data)
	if err != nil {
		return
	}
	msgs := []decode.Message{*m}
	if m.Kind == decode.Batch {
		msgs = p.Batch()
	}
	for k := range msgs {
		params := msgs[k].Params
		want := len(params) > 0 && (params[0] == '{' || params[0] == '[') && !scan.HasSpace(params)
		if got := msgs[k].ParamsCompact(); got != want && (exact || got) {
			t.Fatalf("member %d: ParamsCompact() = %v, want %v (exact %v) on %q", k, got, want, exact, data)
		}
	}
}

// skipPortable skips a test when the CPU has no AVX2: there is no SIMD path to compare.
func skipPortable(t *testing.T) {
	if _, now := scan.SetSIMD(scan.AVX512); now == scan.Portable {
		t.Skip("the CPU has no AVX2")
	}
}

// restore puts the SIMD level back as it was before SetSIMD returned was.
func restore(was, _ int) { scan.SetSIMD(was) }

func equal(a, b answers) bool {
	if a.valid != b.valid || a.validShallow != b.validShallow || a.whole != b.whole || a.whole3 != b.whole3 ||
		a.lax != b.lax || a.parse != b.parse || len(a.strs) != len(b.strs) {
		return false
	}
	for k := range a.strs {
		if a.strs[k] != b.strs[k] {
			return false
		}
	}
	return true
}

// simdSeeds put escapes, \u, control and non-ASCII bytes and number edge cases around
// the 64-byte blocks.
func simdSeeds() []string {
	pad := strings.Repeat("a", 70)
	ints := strings.Repeat("1,22,-3,0,4567,", 10)
	return []string{
		`["` + pad + `"]`, `["` + pad + `\n` + pad + `"]`, `["` + pad + `\u00e9` + pad + `"]`,
		`["` + pad + `\u00g9` + pad + `"]`, `["` + pad + `\x` + pad + `"]`, `["` + pad + "\x01" + pad + `"]`,
		`["` + pad + "é\xff" + pad + `"]`, `["` + pad + `\\\"` + pad + `"]`, `["` + pad, `["` + pad + `\`,
		`[` + ints + `1]`, `[` + ints + `01]`, `[` + ints + `-01,1]`, `[` + ints + `1.5e3]`, `[` + ints + `,]`,
		`[` + ints + `--1]`, `[` + ints + `1-1]`, `[` + ints + `-,1]`, `[` + ints, `[` + ints + ` 1, 2]`,
		`{"jsonrpc":"2.0","method":"` + pad + `","params":[` + ints + `9],"id":"` + pad + `\"x"}`,
		`{"jsonrpc":"2.0","method":"m","params":[` + ints + `9] ,"id":"` + pad + `"}` + "\n",
		`[{"jsonrpc":"2.0","method":"m","params":{"a": 1,"b":"` + pad + `"}},{"method":"m","params":["` + pad + ` ",{"x":[1,2]}]}]`,
		`{"params":{"` + pad + `":[1,2,{"b":[` + ints + `3]}],"c" :1},"jsonrpc":"2.0","method":"m"}`,
	}
}

// FuzzSIMD is the differential fuzz target: SIMD and portable give the same answers.
func FuzzSIMD(f *testing.F) {
	for _, s := range simdSeeds() {
		f.Add([]byte(s))
	}
	for _, sh := range shapes.All {
		f.Add([]byte(sh.Doc[:300]))
		f.Add([]byte(sh.Doc[:300] + "]"))
	}
	was, now := scan.SetSIMD(scan.AVX2)
	scan.SetSIMD(was)
	if now == scan.Portable {
		f.Skip("the CPU has no AVX2: there is no SIMD path to compare")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer restore(scan.SetSIMD(scan.AVX512))
		same(t, data)
	})
}

// TestSIMDBoundaries moves each troublesome sequence across every offset of two blocks,
// inside a string and inside an array of integers, and compares both paths.
func TestSIMDBoundaries(t *testing.T) {
	defer restore(scan.SetSIMD(scan.AVX512))
	skipPortable(t)
	inString := []string{`\n`, `\\`, `\\\\`, `\"`, `\\\"`, `\u00e9`, `\uD83D\uDE00`, `\u00`, `\u00"`, `\u0g00`, `\u000g`, `\u00e"`, `\u12\n`, "\\n\x01", "\\té", "\\\\\xff", "\\t\x1f\\r",
		`\x`, `\`, `\\\`, "\x01", "\x1f", "\x7f", "é", "\xe2\x80\xa8", "\xff", "\xc3", `"`, `\/`, `\b\f\r\t`}
	for _, x := range inString {
		for k := 0; k < 140; k++ {
			s := `["` + strings.Repeat("a", k) + x + strings.Repeat("b", 140-k) + `","x"]`
			same(t, []byte(s))
			same(t, []byte(s[:len(s)-8])) // cut short
			same(t, []byte(`{"`+strings.Repeat("k", k)+x+`":1,"v":"`+strings.Repeat("c", 100)+x+`"}`))
		}
	}
	inInts := []string{"0", "00", "01", "-0", "-01", "-", "--1", "1-", "1-2", "0-1", ",", ",,", "1.5", "1e5", " ", "]", "}", "\"", "a"}
	for _, x := range inInts {
		for k := 0; k < 140; k++ {
			var b bytes.Buffer
			b.WriteByte('[')
			for b.Len() < k {
				b.WriteString("12,")
			}
			b.WriteString(x)
			for b.Len() < 200 {
				b.WriteString(",3")
			}
			same(t, append(b.Bytes(), ']'))
			same(t, b.Bytes())
		}
	}
	for _, sh := range shapes.All {
		same(t, []byte(sh.Doc))
	}
}

// TestSIMDSeparators moves compact members, right and wrong, across every offset of two
// blocks, in objects and arrays: walk checks a ':' or ',' between a value and the next token
// on the masks (not as a token), and must accept and reject exactly what the portable code
// does, at the same offset.
func TestSIMDSeparators(t *testing.T) {
	defer restore(scan.SetSIMD(scan.AVX512))
	skipPortable(t)
	members := []string{`"a":1,"b":"c"`, `"a":{"b":1},"c":[2,"d"]`, `"a":true,"b":null,"c":-1`,
		`"a","b":1`, `"a":"b":1`, `"a"::1`, `"a":,1`, `"a":1,}`, `"a":}`, `"a":1:2`, `"a":{"b":1}"c":2`,
		`"a":[1,]`, `"a":[1:2]`, `"a":[1,"x":2]`, `"a":[1,,2]`, `"a":1,,"b":2`, `"a":"x","b"}`, `"a":[1]:2`,
		`"a":{}:1`, `"a":01,"b":1`, `"a":1x,"b":1`, `"a":"x"1,"b":1`, `"a":"x"{"b":1}`, `"a":["x"]"b"`,
		`"a":1,"b"`, `"a":1,2`, `"a":"\u00e9","b":"\x"`, "\"a\":\"\x01\",\"b\":1"}
	for _, m := range members {
		for k := 0; k < 140; k++ {
			pad := strings.Repeat("p", k)
			same(t, []byte(`{"pad":"`+pad+`",`+m+`,"z":[`+m[:len(m)/2]+`]}`))
			same(t, []byte(`["`+pad+`",{`+m+`},[`+m+`],"z"]`))
			same(t, []byte(`[1,`+strings.Repeat("2,", k)+`{`+m+`}]`))
		}
	}
}

// TestSIMDMutations replaces, inserts and deletes one byte at every offset of documents of
// every shape (nested, with whitespace, literals and floats) and compares both paths.
func TestSIMDMutations(t *testing.T) {
	defer restore(scan.SetSIMD(scan.AVX512))
	skipPortable(t)
	docs := []string{
		shapes.All[4].Doc[:260] + "]", // eth
		shapes.All[5].Doc[:400] + "]", // lsp
		`{"a": [1, 2.5, -3e-2, true, false, null, {"b" : {"c":[[]], "d":{}}}, "x\u00e9y", "é"],` + "\n\t" +
			`"e":[0,-0,10,200,3000,40000,500000,6000000,70000000,800000000,-1,-22,-333,-4444,1.0E+2,-19.99e+19,1234567890,0.9, 9 ],"f":"` +
			strings.Repeat("z", 70) + `\\\\"}`,
	}
	subst := []byte{'"', '\\', '{', '}', '[', ']', ':', ',', ' ', '\n', '0', '5', '-', '.', 'e', 'u', 'x', 'f', 0x01, 0xc3, 0xff}
	// Composite hands a value to walk 64 bytes into it: each document also comes after such a
	// prefix, where only the document is mutated.
	prefix := `{"pad":"` + strings.Repeat("p", 64) + `","doc":`
	for _, doc := range docs {
		for _, pre := range []string{"", prefix} {
			end := "}"
			if pre == "" {
				end = ""
			}
			for k := len(pre); k < len(pre)+len(doc); k++ {
				d := pre + doc + end
				for _, c := range subst {
					b := []byte(d)
					b[k] = c
					same(t, b)
					same(t, []byte(d[:k]+string(c)+d[k:]))
				}
				same(t, []byte(d[:k]+d[k+1:]))
				same(t, []byte(d[:k]))
			}
		}
	}
}

// TestSIMDJSONTestSuite runs nst/JSONTestSuite's files (fuzz/testdata) through both paths,
// as they are and between two 64-byte strings of an array (so that the lanes take them):
// the same answers,
// every y_ file valid and every n_ file invalid on the SIMD path.
func TestSIMDJSONTestSuite(t *testing.T) {
	defer restore(scan.SetSIMD(scan.AVX512))
	skipPortable(t)
	names, err := filepath.Glob("../../fuzz/testdata/jsontestsuite/*.json")
	if err != nil || len(names) < 300 {
		t.Fatalf("JSONTestSuite files: %d, %v", len(names), err)
	}
	pre := `["` + strings.Repeat("p", 64) + `",`
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		padded := []byte(pre + string(data) + `,"` + strings.Repeat("q", 64) + `"]`)
		same(t, data)
		same(t, padded)
		scan.SetSIMD(scan.AVX512)
		switch base := filepath.Base(n); base[0] {
		case 'y':
			if !scan.Valid(data, 0) || !scan.Valid(padded, 0) {
				t.Errorf("%s: valid JSON rejected on the SIMD path", base)
			}
		case 'n':
			if scan.Valid(data, 0) {
				t.Errorf("%s: not JSON, accepted on the SIMD path", base)
			}
		}
	}
}

// TestSIMDBlockMutations changes each byte of compact objects (the lsp and eth shapes, whose
// blocks walk checks on their masks) into each byte that matters to the grammar, deletes
// it, and doubles it: both paths answer alike, error offsets, depth limit and all.
func TestSIMDBlockMutations(t *testing.T) {
	defer restore(scan.SetSIMD(scan.AVX512))
	skipPortable(t)
	for _, sh := range shapes.All {
		if sh.Name != "lsp" && sh.Name != "eth" {
			continue
		}
		end := strings.Index(sh.Doc[600:], "},{") + 600
		doc := sh.Doc[:end] + "}]"
		for k := 1; k < len(doc)-1; k++ {
			for _, c := range []byte(`{}[]:,"0-1e.a \\`) {
				if doc[k] == c {
					continue
				}
				same(t, []byte(doc[:k]+string(c)+doc[k+1:]))
			}
			same(t, []byte(doc[:k]+doc[k+1:]))
			same(t, []byte(doc[:k]+doc[k:k+1]+doc[k:]))
		}
	}
}
