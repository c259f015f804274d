package decode

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyntaxErrors(t *testing.T) {
	var p Parser
	// f expects a SyntaxError wrapping want at offset off (-1: any offset).
	f := func(in string, want error, off int) {
		t.Helper()
		m, err := p.Parse([]byte(in))
		assert.Nil(t, m, "%q", in)
		var se *SyntaxError
		if !assert.ErrorAs(t, err, &se, "%q", in) {
			return
		}
		assert.ErrorIs(t, err, want, "%q", in)
		if off >= 0 {
			assert.Equal(t, off, se.Offset, "%q", in)
		}
		assert.False(t, Valid([]byte(in), 0), "%q", in)
	}
	// Empty and whitespace-only.
	f(``, ErrTruncated, 0)
	f(`   `, ErrTruncated, 3)
	f("\t\r\n", ErrTruncated, 3)

	// Literals.
	f(`tru`, ErrTruncated, 3)
	f(`nul`, ErrTruncated, 3)
	f(`fals`, ErrTruncated, 4)
	f(`trux`, ErrSyntax, 3)
	f(`True`, ErrSyntax, 0)
	f(`nulll`, ErrSyntax, 4)
	f(`nan`, ErrSyntax, 1)
	f(`NaN`, ErrSyntax, 0)
	f(`[tru]`, ErrSyntax, 4)
	f(`{"a":nul}`, ErrSyntax, 8)
	f(`{"a":undefined}`, ErrSyntax, 5)

	// Numbers.
	f(`01`, ErrSyntax, 1)
	f(`-01`, ErrSyntax, 2)
	f(`00`, ErrSyntax, 1)
	f(`[01]`, ErrSyntax, 2)
	f(`-`, ErrTruncated, 1)
	f(`-a`, ErrSyntax, 1)
	f(`--1`, ErrSyntax, 1)
	f(`+1`, ErrSyntax, 0)
	f(`1.`, ErrTruncated, 2)
	f(`[1.]`, ErrSyntax, 3)
	f(`1.e3`, ErrSyntax, 2)
	f(`.5`, ErrSyntax, 0)
	f(`[.5]`, ErrSyntax, 1)
	f(`1e`, ErrTruncated, 2)
	f(`1e+`, ErrTruncated, 3)
	f(`1E-`, ErrTruncated, 3)
	f(`1ea`, ErrSyntax, 2)
	f(`1e+-1`, ErrSyntax, 3)
	f(`0x10`, ErrSyntax, 1)
	f(`1_000`, ErrSyntax, 1)
	f(`Infinity`, ErrSyntax, 0)
	f(`{"id":1.5.5}`, ErrSyntax, 9)

	// Strings.
	f(`"a`, ErrTruncated, 2)
	f(`"`, ErrTruncated, 1)
	f(`"\`, ErrTruncated, 2)
	f("\"\x01\"", ErrSyntax, 1)
	f("\"a\tb\"", ErrSyntax, 2)
	f("\"abcdefghijklmnop\nq\"", ErrSyntax, 17)
	f(`"\x"`, ErrSyntax, 2)
	f(`"\'"`, ErrSyntax, 2)
	f(`"\U0041"`, ErrSyntax, 2)
	f(`"\u12G4"`, ErrSyntax, 5)
	f(`"\u12"`, ErrSyntax, 5)
	f(`"\u12`, ErrTruncated, 5)
	f(`"\u`, ErrTruncated, 3)
	f(`{"a\x":1}`, ErrSyntax, 4)
	f("{\"a\x00\":1}", ErrSyntax, 3)
	f(`'a'`, ErrSyntax, 0)

	// Structure.
	f(`{"a" 1}`, ErrSyntax, 5)
	f(`{"a"::1}`, ErrSyntax, 5)
	f(`{"a":1,}`, ErrSyntax, 7)
	f(`{,}`, ErrSyntax, 1)
	f(`{1:2}`, ErrSyntax, 1)
	f(`{a:1}`, ErrSyntax, 1)
	f(`{"a":1 "b":2}`, ErrSyntax, 7)
	f(`{"a":}`, ErrSyntax, 5)
	f(`[1,]`, ErrSyntax, 3)
	f(`[,1]`, ErrSyntax, 1)
	f(`[1 2]`, ErrSyntax, 3)
	f(`[}`, ErrSyntax, 1)
	f(`{]`, ErrSyntax, 1)
	f(`{"a":[1}]}`, ErrSyntax, 7)
	f(`{"a":{"b":1]}`, ErrSyntax, 11)
	f(`[[1]}`, ErrSyntax, 4)
	f(`,`, ErrSyntax, 0)
	f(`:`, ErrSyntax, 0)
	f(`]`, ErrSyntax, 0)
	f(`}`, ErrSyntax, 0)
	f(`{"a":1}}`, ErrSyntax, 7)
	f(`{"a":1} x`, ErrSyntax, 8)
	f(`{"a":1}{"a":1}`, ErrSyntax, 7)
	f(`[] []`, ErrSyntax, 3)
	f(`1 2`, ErrSyntax, 2)
	f("\xef\xbb\xbf{}", ErrSyntax, 0) // a BOM is not whitespace
	f("{}\x00", ErrSyntax, 2)
	f("\v{}", ErrSyntax, 0)
	f("{\f}", ErrSyntax, 1)
	f(`[1,2`, ErrTruncated, 4)
	f(`[1,2,`, ErrTruncated, 5)
	f(`{"a":1,`, ErrTruncated, 7)
	f(`{"a"`, ErrTruncated, 4)
	f(`{"a":`, ErrTruncated, 5)

	// UTF-8 inside strings.
	f("\"\xff\"", ErrUTF8, 1)
	f("\"\xfe\"", ErrUTF8, 1)
	f("\"\x80\"", ErrUTF8, 1)
	f("\"abc\xbf\"", ErrUTF8, 4)
	f("\"\xc0\x80\"", ErrUTF8, 1)         // overlong NUL
	f("\"\xc1\xbf\"", ErrUTF8, 1)         // overlong
	f("\"\xe0\x80\x80\"", ErrUTF8, 1)     // overlong 3 bytes
	f("\"\xe0\x9f\xbf\"", ErrUTF8, 1)     // overlong 3 bytes
	f("\"\xf0\x80\x80\x80\"", ErrUTF8, 1) // overlong 4 bytes
	f("\"\xf0\x8f\xbf\xbf\"", ErrUTF8, 1) // overlong 4 bytes
	f("\"\xed\xa0\x80\"", ErrUTF8, 1)     // U+D800 encoded
	f("\"\xed\xbf\xbf\"", ErrUTF8, 1)     // U+DFFF encoded
	f("\"\xf4\x90\x80\x80\"", ErrUTF8, 1) // above U+10FFFF
	f("\"\xf5\x80\x80\x80\"", ErrUTF8, 1)
	f("\"\xf8\x88\x80\x80\x80\"", ErrUTF8, 1)
	f("\"\xc3\"", ErrUTF8, 1)         // sequence cut by the closing quote
	f("\"\xe2\x82\"", ErrUTF8, 1)     // sequence cut by the closing quote
	f("\"\xf0\x9f\x98\"", ErrUTF8, 1) // sequence cut by the closing quote
	f("\"\xe2\x82x\"", ErrUTF8, 1)
	f("\"\xe2\x82", ErrTruncated, 3) // cut by the end of input
	f("\"\xf0\x9f", ErrTruncated, 3)
	f("\"\xc3", ErrTruncated, 2)
	f("{\"\xff\":1}", ErrUTF8, 2) // in a member name
	f("[\"é\",\"\xe9\"]", ErrUTF8, 7)
	f("\xc3\xa9", ErrSyntax, 0) // not in a string
}

func TestSyntaxErrorOffsetsInLongStrings(t *testing.T) {
	// A byte needing attention at every position relative to the 8-byte blocks.
	var p Parser
	for n := range 40 {
		pre := `{"k":"` + strings.Repeat("a", n)
		for _, tc := range []struct {
			ins  string
			want error
		}{{"\x01", ErrSyntax}, {"\x1f", ErrSyntax}, {"\xff", ErrUTF8}, {"\xed\xa0\x80", ErrUTF8}, {`\q`, ErrSyntax}} {
			in := pre + tc.ins + strings.Repeat("b", n) + `"}`
			_, err := p.Parse([]byte(in))
			var se *SyntaxError
			require.ErrorAs(t, err, &se, "%q", in)
			assert.ErrorIs(t, err, tc.want, "%q", in)
			off := len(pre)
			if tc.ins == `\q` {
				off++
			}
			assert.Equal(t, off, se.Offset, "%q", in)
		}
		for _, ok := range []string{"é", "€", "😀", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80", `\"`, `\\`, `\u00e9`, `\ud800`, "\x7f", " "} {
			in := pre + ok + strings.Repeat("b", n) + `"}`
			_, err := p.Parse([]byte(in))
			assert.NoError(t, err, "%q", in)
		}
	}
}

func TestValidUTF8(t *testing.T) {
	var p Parser
	for _, s := range []string{"é", "€", "😀", "日本語", "\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff",
		"\ud7ff", "\ue000", `\ud800`, `\udfff`, `\udc00\ud800`, `\ud83d\ude00`} {
		in := req(`"method":"` + s + `","params":["` + s + `"],"id":"` + s + `"`)
		m, err := p.Parse([]byte(in))
		require.NoError(t, err, "%q", in)
		assert.Equal(t, Call, m.Kind)
	}
}

func TestTruncatedPrefixes(t *testing.T) {
	var p Parser
	inputs := []string{smallMsg, namedMsg, largeMsg, batch10Msg,
		req(`"method":"caf\u00e9 😀 ü","params":{"a":[true,false,null,-1.5e-3,0,{}],"b":"\ud83d\ude00"},"id":"a\u0041"`),
		` { "jsonrpc" : "2.0" , "method" : "a" , "params" : [ 1 , 2 ] , "id" : 1 } `}
	for _, in := range inputs {
		trimmed := strings.TrimRight(in, " ")
		for n := 0; n < len(trimmed); n++ {
			prefix := []byte(in[:n])
			_, err := p.Parse(prefix)
			var se *SyntaxError
			if !assert.ErrorAs(t, err, &se, "%q", prefix) {
				continue
			}
			assert.ErrorIs(t, err, ErrTruncated, "%q", prefix)
			assert.Equal(t, n, se.Offset, "%q", prefix)
		}
		_, err := p.Parse([]byte(in))
		assert.NoError(t, err)
	}
}

// nest returns n arrays nested in each other around inner.
func nest(n int, inner string) string { return strings.Repeat("[", n) + inner + strings.Repeat("]", n) }

// nestMixed nests n containers, alternating arrays and objects, around inner.
func nestMixed(n int, inner string) string {
	var open, close strings.Builder
	for i := range n {
		if i%2 == 0 {
			open.WriteString(`[`)
		} else {
			open.WriteString(`{"k":`)
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i%2 == 0 {
			close.WriteString(`]`)
		} else {
			close.WriteString(`}`)
		}
	}
	return open.String() + inner + close.String()
}

func TestDepth(t *testing.T) {
	f := func(maxDepth int, in string, wantDepthErr bool) {
		t.Helper()
		p := Parser{MaxDepth: maxDepth}
		_, err := p.Parse([]byte(in))
		if wantDepthErr {
			assert.ErrorIs(t, err, ErrDepth, "max %d len %d", maxDepth, len(in))
		} else {
			assert.NoError(t, err, "max %d len %d", maxDepth, len(in))
		}
		assert.Equal(t, !wantDepthErr, Valid([]byte(in), maxDepth))
	}
	// The envelope is depth 1, its params depth 2, and so on.
	params := func(depth int) string { return req(`"method":"a","params":` + nest(depth-1, "1") + `,"id":1`) }
	for _, limit := range []int{2, 3, 10, 63, 64, 65, 1000, 1024, 1025, 3000} {
		f(limit, params(limit), false)
		f(limit, params(limit+1), true)
		f(limit, nest(limit, "1"), false) // a batch is depth 1
		f(limit, nest(limit+1, "1"), true)
		f(limit, nestMixed(limit, "1"), false)
		f(limit, nestMixed(limit+1, "1"), true)
		f(limit, "["+nestMixed(limit-1, "1")+","+nestMixed(limit-1, "2")+"]", false)
		// A batch member object is depth 2.
		f(limit, "["+req(`"method":"a","params":`+nest(limit-2, "1")+`,"id":1`)+"]", false)
		f(limit, "["+req(`"method":"a","params":`+nest(limit-1, "1")+`,"id":1`)+"]", true)
	}
	f(1, `{}`, false)
	f(1, `[1]`, false)
	f(1, `[{}]`, true)
	f(1, req(`"method":"a","params":[]`), true)
	f(0, params(DefaultMaxDepth), false)
	f(0, params(DefaultMaxDepth+1), true)
	f(-1, params(DefaultMaxDepth+1), true)

	// Very deep input is rejected early, without recursion.
	deep := []byte(strings.Repeat("[", 100000))
	start := time.Now()
	var p Parser
	_, err := p.Parse(deep)
	assert.ErrorIs(t, err, ErrDepth)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, DefaultMaxDepth, se.Offset)
	_, err = p.Parse([]byte(strings.Repeat(`{"a":`, 100000)))
	assert.ErrorIs(t, err, ErrDepth)
	t.Log("100000 '[' rejected in", time.Since(start))

	// With a limit above the input's depth, the same input is merely truncated; the bit stack
	// grows past its fixed part.
	big := Parser{MaxDepth: 200000}
	_, err = big.Parse(deep)
	assert.ErrorIs(t, err, ErrTruncated)
	in := nestMixed(150000, "null")
	_, err = big.Parse([]byte(in))
	assert.NoError(t, err)
	_, err = big.Parse([]byte(in[:len(in)-1] + "}"))
	assert.ErrorIs(t, err, ErrSyntax)
}

func TestSyntaxErrorType(t *testing.T) {
	var p Parser
	_, err := p.Parse([]byte(`{"a":tx}`))
	require.Error(t, err)
	assert.Equal(t, "decode: invalid JSON at offset 6", err.Error())
	assert.True(t, errors.Is(err, ErrSyntax))
	assert.False(t, errors.Is(err, ErrUTF8))
	// The error is the Parser's own: returning it does not allocate, and the next Parse reuses it.
	_, err2 := p.Parse([]byte(`"`))
	assert.Same(t, err, err2)
	assert.ErrorIs(t, err, ErrTruncated)
	assert.Equal(t, "decode: syntax error at offset 3", (&SyntaxError{Offset: 3}).Error())
	assert.Nil(t, (&SyntaxError{}).Unwrap())
}
