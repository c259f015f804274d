package decode

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIter(t *testing.T) {
	// f iterates in and expects the "key=value" (or "value" for arrays) entries.
	f := func(in string, obj bool, want ...string) {
		t.Helper()
		var it Iter
		require.True(t, it.Reset([]byte(in)), in)
		assert.Equal(t, obj, it.IsObject(), in)
		var got []string
		for it.Next() {
			if obj {
				got = append(got, string(it.Key())+"="+string(it.Value()))
			} else {
				assert.Nil(t, it.Key())
				got = append(got, string(it.Value()))
			}
		}
		assert.Equal(t, want, got, in)
		assert.False(t, it.Next(), in)
		assert.Nil(t, it.Value())
	}
	f(`[]`, false)
	f(` [ ] `, false)
	f(`{}`, true)
	f(`[1]`, false, `1`)
	f(`[42,23]`, false, `42`, `23`)
	f(` [ 1 , "a,]\"" , [2,[3]] , {"b":[]} , true , false , null , -1.5e3 ] `, false,
		`1`, `"a,]\""`, `[2,[3]]`, `{"b":[]}`, `true`, `false`, `null`, `-1.5e3`)
	f(`{"subtrahend":23,"minuend":42}`, true, `subtrahend=23`, `minuend=42`)
	f(`{ "a" : { "}" : "{" } , "b\"c" : [ ] , "\u0064" :"x\\"}`, true, `a={ "}" : "{" }`, `b\"c=[ ]`, `\u0064="x\\"`)
	f(`["\\\\",1]`, false, `"\\\\"`, `1`)
	// Numbers of every shape around the small-integer path (one or two digits before , ] }).
	f(`[0,7,10,99,100,-1,0.5,1e2,12.5,99E1,123,0]`, false,
		`0`, `7`, `10`, `99`, `100`, `-1`, `0.5`, `1e2`, `12.5`, `99E1`, `123`, `0`)
	f(`[1 ,22 , 3]`, false, `1`, `22`, `3`)
	f(`{"a":0,"b":99,"c":100,"d":1.5,"e":-7,"f":42}`, true, `a=0`, `b=99`, `c=100`, `d=1.5`, `e=-7`, `f=42`)
	f(`[5]`, false, `5`)
	f(`[55]`, false, `55`)

	var it Iter
	for _, in := range []string{``, ` `, `1`, `"[1]"`, `null`, `]`} {
		assert.False(t, it.Reset([]byte(in)), in)
		assert.False(t, it.Next(), in)
	}
	// Not validated: stops, never panics.
	for _, in := range []string{`[`, `[1`, `[1,`, `{"a"`, `{"a":`, `{"a" 1}`, `{1:2}`, `[1 2]`, `["a]`, `{"a":[}`} {
		it.Reset([]byte(in))
		for it.Next() {
		}
	}

	// Reading named params the way a handler would.
	var p Parser
	m, err := p.Parse([]byte(namedMsg))
	require.NoError(t, err)
	var minuend, subtrahend int64
	it.Reset(m.Params)
	for it.Next() {
		switch {
		case KeyEquals(it.Key(), "minuend"):
			minuend, err = ParseInt(it.Value())
		case KeyEquals(it.Key(), "subtrahend"):
			subtrahend, err = ParseInt(it.Value())
		}
		require.NoError(t, err)
	}
	assert.Equal(t, int64(19), minuend-subtrahend)
}

func TestSkipValue(t *testing.T) {
	f := func(in string, i, want int) {
		t.Helper()
		assert.Equal(t, want, SkipValue([]byte(in), i), "%q at %d", in, i)
	}
	f(`1`, 0, 1)
	f(` -1.5e3 ,`, 0, 7)
	f(`"a\"b" x`, 0, 6)
	f(`"a\\" x`, 0, 5)
	f(`[1,[2,{"a":"]"}]] x`, 0, 17)
	f(`{"a":{"b":"}"}}`, 0, 15)
	f(`[1,true]`, 3, 7)
	f(`[1,true]`, 1, 2)
	f(`null}`, 0, 4)
	f(``, 0, -1)
	f(`   `, 0, -1)
	f(`[1`, 0, -1)
	f(`"abc`, 0, -1)
	f(`,`, 0, -1)
	f(`]`, 0, -1)
	f(`1`, 5, -1)
	f(`1`, -1, -1)
}

func TestAppendUnquote(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		got, err := AppendUnquote([]byte("pre:"), []byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, "pre:"+want, string(got), in)
		// Same as encoding/json.
		var s string
		require.NoError(t, json.Unmarshal([]byte(in), &s))
		assert.Equal(t, s, want, in)
	}
	f(`""`, "")
	f(`"abc"`, "abc")
	f(`"a\u0041"`, "aA")
	f(`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t")
	f(`"caf\u00e9 \u20AC"`, "café €")
	f(`"\ud83d\ude00"`, "😀")
	f(`"\uD83D\uDE00!"`, "😀!")
	f(`"\ud800"`, "\uFFFD")
	f(`"\udc00"`, "\uFFFD")
	f(`"\ud800\u0041"`, "\uFFFDA")
	f(`"\ud800\ud800"`, "\uFFFD\uFFFD")
	f(`"\ud800x"`, "\uFFFDx")
	f(`"\u0000"`, "\x00")
	f(`"日本語 😀"`, "日本語 😀")
	for _, bad := range []string{``, `"`, `a`, `"a`, `a"`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\"`} {
		_, err := AppendUnquote(nil, []byte(bad))
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
}

func TestKeyEquals(t *testing.T) {
	f := func(raw, name string, want bool) {
		t.Helper()
		assert.Equal(t, want, KeyEquals([]byte(raw), name), "%q %q", raw, name)
	}
	f(`method`, "method", true)
	f(`method`, "Method", false)
	f(`method`, "metho", false)
	f(`metho`, "method", false)
	f(``, "", true)
	f(``, "a", false)
	f(`m\u0065thod`, "method", true)
	f(`\u006d\u0065\u0074\u0068\u006f\u0064`, "method", true)
	f(`m\u0065thod`, "methodx", false)
	f(`m\u0065thodx`, "method", false)
	f(`m\u0045thod`, "method", false)
	f(`a\\b`, `a\\b`, false) // as long as name, but it decodes to a\b
	f(`a\\b`, `a\b`, true)
	f(`a\nb`, "a\nb", true)

	// Every raw key and name of up to 4 bytes over an alphabet of escapes: KeyEquals says what
	// unquoting and comparing says.
	alpha := []byte(`a\nu0`)
	var all []string
	var gen func(prefix []byte)
	gen = func(prefix []byte) {
		all = append(all, string(prefix))
		if len(prefix) == 4 {
			return
		}
		for _, b := range alpha {
			gen(append(prefix[:len(prefix):len(prefix)], b))
		}
	}
	gen(nil)
	for _, raw := range all {
		dec, err := AppendUnquote(nil, []byte(`"`+raw+`"`))
		for _, name := range all {
			if KeyEquals([]byte(raw), name) != (err == nil && string(dec) == name) {
				t.Fatalf("KeyEquals(%q, %q) = %v, unquoted %q (%v)", raw, name, !(err == nil && string(dec) == name), dec, err)
			}
		}
	}
	f(`a\"b`, `a"b`, true)
	f(`a\\b`, `a\b`, true)
	f(`a\\b`, `a\\b`, false) // raw equal, but the raw key has an escape
	f(`a\b`, `a\b`, false)
	f(`caf\u00e9`, "café", true)
	f(`caf\u00e9`, "cafe", false)
	f(`\ud83d\ude00`, "😀", true)
	f(`\ud800`, "\uFFFD", true)
	f(`\u12`, "x", false)
	f(`x\`, "x", false)
}

func TestParseNumbers(t *testing.T) {
	i := func(in string, want int64) {
		t.Helper()
		got, err := ParseInt([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	i(`0`, 0)
	i(`-0`, 0)
	i(`42`, 42)
	i(`-23`, -23)
	i(`999999999999999999`, 999999999999999999)
	i(`9223372036854775807`, math.MaxInt64)
	i(`-9223372036854775808`, math.MinInt64)
	for _, bad := range []string{``, `-`, `1.5`, `1.0`, `1e3`, `01`, `+1`, ` 1`, `1 `, `0x10`, `abc`, `"1"`, `1_0`} {
		_, err := ParseInt([]byte(bad))
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
	for _, big := range []string{`9223372036854775808`, `-9223372036854775809`, `99999999999999999999999`} {
		_, err := ParseInt([]byte(big))
		assert.ErrorIs(t, err, strconv.ErrRange, big)
	}

	fl := func(in string, want float64) {
		t.Helper()
		got, err := ParseFloat([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	fl(`0`, 0)
	fl(`1.5`, 1.5)
	fl(`-2.5e-3`, -0.0025)
	fl(`1e3`, 1000)
	fl(`1E+2`, 100)
	fl(`9007199254740993`, 9007199254740992)
	got, err := ParseFloat([]byte(`-0`))
	require.NoError(t, err)
	assert.True(t, math.Signbit(got))
	for _, bad := range []string{``, `NaN`, `Inf`, `-Infinity`, `0x1p3`, `.5`, `1.`, `1e`, `1_0`, `+1`} {
		_, err := ParseFloat([]byte(bad))
		assert.ErrorIs(t, err, ErrSyntax, bad)
	}
	got, err = ParseFloat([]byte(`1e400`))
	assert.True(t, errors.Is(err, strconv.ErrRange))
	assert.True(t, math.IsInf(got, 1))
}

func TestValid(t *testing.T) {
	f := func(in string, want bool) {
		t.Helper()
		assert.Equal(t, want, Valid([]byte(in), 0), "%q", in)
	}
	f(`1`, true)
	f(` {"a":[1,2,{"b":null}]} `, true)
	f(`"\ud800"`, true)
	f(`[1,]`, false)
	f("\"\xff\"", false)
	f(``, false)
	f(nest(DefaultMaxDepth, ""), true)
	f(nest(DefaultMaxDepth+1, ""), false)
	assert.True(t, Valid([]byte(nest(2000, "")), 2000))
	assert.False(t, Valid([]byte(nest(2001, "")), 2000))
}
