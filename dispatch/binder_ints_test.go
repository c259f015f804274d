package dispatch

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The struct params bindIntFields takes (twoInts, mixedInts, oneUint) and
// ones it must leave to the decoder.
type (
	twoInts   struct{ A, B int }
	mixedInts struct {
		A int8
		B int16
		C int32
		D int64
		E uint
		F uint16
		G uint32
		H uint64
		I int
		J uintptr
	}
	oneUint struct {
		U uint `json:"u"`
	}
	quotedInt struct {
		A int `json:",string"`
	}
	floatField struct {
		A int
		F float64
	}
	embeddedPtr struct {
		*twoInts
		C int
	}
	textInt  int
	withText struct{ T textInt }
)

func (t *textInt) UnmarshalText([]byte) error { *t = 7; return nil }

// TestIntFieldsOf: only structs of plain integer fields get the fast binder.
func TestIntFieldsOf(t *testing.T) {
	for name, b := range map[string]*binder{
		"twoInts": newBinder[twoInts](), "mixedInts": newBinder[mixedInts](), "oneUint": newBinder[oneUint](),
	} {
		if b.ints == nil || !b.direct() {
			t.Errorf("%s: no fast binder", name)
		}
	}
	for name, b := range map[string]*binder{
		"*twoInts": newBinder[*twoInts](), "quotedInt": newBinder[quotedInt](), "floatField": newBinder[floatField](),
		"embeddedPtr": newBinder[embeddedPtr](), "withText": newBinder[withText](), "empty": newBinder[struct{}](),
	} {
		if b.ints != nil {
			t.Errorf("%s: a fast binder", name)
		}
	}
	if !newBinder[mixedInts]().intsU || newBinder[twoInts]().intsU {
		t.Error("intsU wrong")
	}
	// Which params the fast path itself takes (TestTypedIntFields checks the answers).
	b := newBinder[twoInts]()
	for params, want := range map[string]bool{
		`[42,23]`: true, `{"B":23,"A":42}`: true, `{ "A" : 42 }`: true, `{}`: true, `[]`: true,
		`{"a":42}`: false, `{"A":1,"A":2}`: false, `{"A":1,"C":2}`: false, `{"A":null}`: false, `[1,2,3]`: false,
	} {
		var p twoInts
		got := b.bindDirect([]byte(params), unsafe.Pointer(&p))
		if got != want {
			t.Errorf("bindDirect(%s) = %v, want %v", params, got, want)
		}
	}
}

// intParams are params around every edge of bindIntFields and
// bindIntMembers: counts, names, ranges of each kind, signs, and what only
// the decoder takes or refuses.
var intParams = func() []string {
	ps := []string{
		`[]`, `[1]`, `[1,2]`, `[1,2,3]`, `[ 1 , -2 ]`, "[1,\n2]", `[-0]`, `[-0,-0]`, `[0,0,0,0,0,0,0,0,0,0]`,
		`[0,0,0,0,0,0,0,0,0,0,0]`, `[1.5]`, `[1.0,2]`, `[1e2]`, `[null]`, `[1,null]`, `["1"]`, `[true]`,
		`[[1]]`, `[{}]`, `{}`, `{"A":1,"B":2}`, `{"u":3}`, `[999999999999999999]`, `[-999999999999999999]`,
		`[9223372036854775807]`, `[9223372036854775808]`, `[-9223372036854775808]`, `[18446744073709551615]`,
		`[18446744073709551616]`, `[-1]`, `[1,-1]`,
		// Named: exact names only; everything else is the decoder's (case folding, escapes,
		// duplicates, unknown members, null, fractions, signs for unsigned fields).
		`{"A":1}`, `{"B":2,"A":1}`, `{ "A" : 1 , "B" : -2 }`, "{\n\"A\":1,\n\"B\":2\n}", `{"a":1,"B":2}`,
		`{"A":1,"A":2}`, `{"A":1,"C":3}`, `{"C":3}`, `{"A":null}`, `{"A":1.5}`, `{"A":1e2}`, `{"A":"1"}`,
		`{"\u0041":1}`, `{"A\"":1}`, `{"A":-0}`, `{"u":3}`, `{"U":3}`, `{"u":-0}`, `{"u":-1}`, `{"u":1,"u":2}`,
		`{"A":127,"B":-32768,"C":2147483647,"D":-999999999999999999,"E":18,"F":65535,"G":4294967295,"H":999999999999999999,"I":-7,"J":9}`,
		`{"A":128}`, `{"B":32768}`, `{"C":-2147483649}`, `{"F":65536}`, `{"G":4294967296}`, `{"E":-1}`,
		`{"J":1,"I":2,"H":3,"G":4,"F":5,"E":6,"D":7,"C":8,"B":9,"A":10}`, `{"A":[1]}`, `{"A":{}}`, `{"":1}`,
	}
	// Each position of mixedInts at the edges of its kind.
	edges := [][]string{
		{"127", "128", "-128", "-129"}, {"32767", "32768", "-32768", "-32769"},
		{"2147483647", "2147483648", "-2147483648", "-2147483649"}, {"-1", "123456789012345678"},
		{"-1", "0", "4294967296"}, {"65535", "65536", "-1"}, {"4294967295", "4294967296", "-1"},
		{"-1", "999999999999999999"}, {"-5", "2147483648"}, {"-1", "77"},
	}
	for pos, vals := range edges {
		for _, v := range vals {
			elems := make([]string, pos+1)
			for i := range elems {
				elems[i] = "1"
			}
			elems[pos] = v
			ps = append(ps, "["+strings.Join(elems, ",")+"]")
		}
	}
	return ps
}()

// intEngines returns engines whose methods take each struct of integers
// and answer it back (through a frame) or a number made of it (the direct
// path, without a frame): one built with the fast binder, one without it.
func intEngines(t testing.TB) (fast, slow *Engine) {
	build := func(off bool) *Engine {
		intFieldsOff = off
		defer func() { intFieldsOff = false }()
		e := New(nil)
		for name, h := range map[string]Handler{
			"two":   Typed(func(_ context.Context, p twoInts) (twoInts, error) { return p, nil }),
			"diff":  Typed(func(_ context.Context, p twoInts) (int, error) { return p.A - p.B, nil }),
			"mixed": Typed(func(_ context.Context, p mixedInts) (mixedInts, error) { return p, nil }),
			"mixedI": Typed(func(_ context.Context, p mixedInts) (int64, error) {
				return int64(p.A) + int64(p.B) + int64(p.C) + p.D + int64(p.E) + int64(p.F) + int64(p.G) +
					int64(p.H) + int64(p.I) + int64(p.J), nil
			}),
			"uint":   Typed(func(_ context.Context, p oneUint) (uint, error) { return p.U, nil }),
			"inline": Typed(func(_ context.Context, p twoInts) (int, error) { return p.A + p.B, nil }),
			"strict": Typed(func(_ context.Context, p twoInts) (twoInts, error) { return p, nil }),
		} {
			m := Method{Name: name, Handler: h, Inline: name == "inline", StrictParams: name == "strict"}
			if err := e.RegisterMethod(m); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	fast, slow = build(false), build(true)
	t.Cleanup(func() { fast.Close(); slow.Close() })
	return fast, slow
}

// checkIntParams sends params to every method of both engines and wants
// the same bytes back.
func checkIntParams(t *testing.T, fast, slow *Engine, params string) {
	t.Helper()
	for _, m := range []string{"two", "diff", "mixed", "mixedI", "uint", "inline", "strict"} {
		msg := []byte(`{"jsonrpc":"2.0","method":"` + m + `","params":` + params + `,"id":1}`)
		got, want := fast.Process(nil, msg), slow.Process(nil, msg)
		if string(got) != string(want) {
			t.Fatalf("%s %s:\nfast %s\nslow %s", m, params, got, want)
		}
	}
}

// TestTypedIntFields: a struct of integers bound from positional or named
// params by the fast binder answers exactly as the decoder does, for params
// it takes and for params it leaves to the decoder (errors included, and
// with StrictParams).
func TestTypedIntFields(t *testing.T) {
	fast, slow := intEngines(t)
	for _, p := range intParams {
		checkIntParams(t, fast, slow, p)
	}
	// The usual call answers its difference (the fast path did run: see
	// TestIntFieldsOf for which binders have it).
	out := fast.Process(nil, []byte(`{"jsonrpc":"2.0","method":"diff","params":[42,23],"id":1}`))
	var r struct{ Result int }
	if err := json.Unmarshal(out, &r); err != nil || r.Result != 19 {
		t.Fatalf("diff [42,23]: %s", out)
	}
	for i := range 300 { // two numbers of every length to 18 digits and past it
		a := strings.Repeat("9", 1+i%20)
		checkIntParams(t, fast, slow, "["+a+",-"+strconv.Itoa(i)+"]")
	}
}

// FuzzTypedIntFields: any params, the fast binder against the decoder.
func FuzzTypedIntFields(f *testing.F) {
	for _, p := range intParams {
		f.Add([]byte(p))
	}
	fast, slow := intEngines(f)
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // not one value: spliced into the message it could add members
		}
		checkIntParams(t, fast, slow, string(params))
	})
}
