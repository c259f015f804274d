package decode

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// show renders a field for comparisons: "<nil>" for nil.
func show(b []byte) string {
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

// req builds a request object from its members after "jsonrpc":"2.0".
func req(members string) string { return `{"jsonrpc":"2.0",` + members + `}` }

func TestClassify(t *testing.T) {
	var p Parser
	f := func(in string, kind Kind, reason Reason) {
		t.Helper()
		m, err := p.Parse([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, kind, m.Kind, in)
		assert.Equal(t, reason, m.Reason, in)
	}

	// Requests.
	f(smallMsg, Call, ReasonNone)
	f(namedMsg, Call, ReasonNone)
	f(largeMsg, Call, ReasonNone)
	f(req(`"method":"a"`), Notification, ReasonNone)
	f(req(`"method":"a","params":[]`), Notification, ReasonNone)
	f(req(`"method":"a","params":{}`), Notification, ReasonNone)
	f(req(`"method":"a","id":null`), Call, ReasonNone)
	f(req(`"method":"a","id":"x"`), Call, ReasonNone)
	f(req(`"method":"a","id":-1.5e3`), Call, ReasonNone)
	f(req(`"method":"","id":1`), Call, ReasonNone)
	f(` { "jsonrpc" : "2.0" , "method" : "a" , "id" : 1 } `, Call, ReasonNone)
	f("\t\r\n{\"jsonrpc\"\n:\t\"2.0\",\"method\":\"a\"}\n", Notification, ReasonNone)
	f(req(`"method":"a","x":[1,{"y":null}],"Method":1,"ID":{}`), Notification, ReasonNone) // unknown members
	f(req(`"method":"a","x":1,"x":2`), Invalid, ReasonDuplicate)                           // any member twice, unknown ones too
	f(req(`"method":"a","_meta":{"progressToken":1},"id":1`), Call, ReasonNone)

	// Responses.
	f(`{"jsonrpc":"2.0","result":19,"id":1}`, Result, ReasonNone)
	f(`{"jsonrpc":"2.0","result":null,"id":null}`, Result, ReasonNone)
	f(`{"id":"x","result":{"a":[1]},"jsonrpc":"2.0"}`, Result, ReasonNone)
	f(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`, ErrorResponse, ReasonNone)
	f(`{"jsonrpc":"2.0","error":{},"id":null}`, ErrorResponse, ReasonNone)
	f(`{"jsonrpc":"2.0","result":1}`, Invalid, ReasonResponse)
	f(`{"jsonrpc":"2.0","error":{}}`, Invalid, ReasonResponse)
	f(`{"jsonrpc":"2.0","error":1,"id":1}`, Invalid, ReasonResponse)
	f(`{"jsonrpc":"2.0","error":null,"id":1}`, Invalid, ReasonResponse)
	f(`{"jsonrpc":"2.0","error":[],"id":1}`, Invalid, ReasonResponse)
	f(`{"jsonrpc":"2.0","result":1,"id":true}`, Invalid, ReasonID)
	f(`{"jsonrpc":"2.0","result":1,"id":[1]}`, Invalid, ReasonID)
	f(`{"jsonrpc":"2.0","result":1,"error":{},"id":1}`, Invalid, ReasonMixed)

	// Version.
	f(`{"method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":2.0,"method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":"2","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":"2.0.0","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":"2.0 ","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":"","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":null,"method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":["2.0"],"method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"JSONRPC":"2.0","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{"jsonrpc":"2\u002e0","method":"a","id":1}`, Call, ReasonNone)
	f(`{"jsonrpc":"\u0032.\u0030","method":"a","id":1}`, Call, ReasonNone)
	f(`{"jsonrpc":"2\u002e0\u0000","method":"a","id":1}`, Invalid, ReasonVersion)
	f(`{}`, Invalid, ReasonVersion)

	// Method, params, id.
	f(req(`"method":1,"id":1`), Invalid, ReasonMethod)
	f(req(`"method":null,"id":1`), Invalid, ReasonMethod)
	f(req(`"method":["a"],"id":1`), Invalid, ReasonMethod)
	f(req(`"method":{},"id":1`), Invalid, ReasonMethod)
	f(req(`"method":true`), Invalid, ReasonMethod)
	f(req(`"method":"a","params":1`), Invalid, ReasonParams)
	f(req(`"method":"a","params":"x","id":1`), Invalid, ReasonParams)
	f(req(`"method":"a","params":null,"id":1`), Invalid, ReasonParams)
	f(req(`"method":"a","params":false,"id":1`), Invalid, ReasonParams)
	f(req(`"method":"a","id":true`), Invalid, ReasonID)
	f(req(`"method":"a","id":false`), Invalid, ReasonID)
	f(req(`"method":"a","id":[]`), Invalid, ReasonID)
	f(req(`"method":"a","id":{"a":1}`), Invalid, ReasonID)
	f(req(`"method":"a","result":1,"id":1`), Invalid, ReasonMixed)
	f(req(`"method":"a","error":{},"id":1`), Invalid, ReasonMixed)
	f(req(`"method":"a","result":1,"error":{},"id":1`), Invalid, ReasonMixed)

	// Neither.
	f(`{"jsonrpc":"2.0"}`, Invalid, ReasonNoMethod)
	f(req(`"id":1`), Invalid, ReasonNoMethod)
	f(req(`"params":[1],"id":1`), Invalid, ReasonNoMethod)
	f(req(`"Method":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"method ":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"_meta":{},"id":1`), Invalid, ReasonNoMethod)

	// Escaped member names are compared after unescaping.
	f(req(`"m\u0065thod":"a","id":1`), Call, ReasonNone)
	f(`{"\u006a\u0073\u006f\u006e\u0072\u0070\u0063":"2.0","method":"a","\u0069\u0064":1}`, Call, ReasonNone)
	f(req(`"\u0070arams":3,"method":"a"`), Invalid, ReasonParams)
	f(req(`"r\u0065sult":1,"\u0069d":1`), Result, ReasonNone)
	f(req(`"\u0065rror":{},"id":1`), ErrorResponse, ReasonNone)
	f(req(`"M\u0065thod":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"m\u0065thod\u0000":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"m\u0065thods":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"\"method\"":"a","id":1`), Invalid, ReasonNoMethod)

	// Near misses of the 8-byte key recogniser are unknown members.
	f(req(`"methods":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"metho":"a","id":1`), Invalid, ReasonNoMethod)
	f(req(`"method":"a","ids":true,"idx":[],"i":{}`), Notification, ReasonNone)
	f(req(`"method":"a","paramsx":1,"param":1`), Notification, ReasonNone)
	f(`{"jsonrpcx":"2.0","method":"a"}`, Invalid, ReasonVersion)
	f(`{"jsonrpc ":"2.0","method":"a"}`, Invalid, ReasonVersion)
	f(req(`"errors":{},"resultx":1,"_metadata":1,"id":1`), Invalid, ReasonNoMethod)
	f(req(`"error":{},"_meta":1,"id":1`), ErrorResponse, ReasonNone)
	f(`{"jsonrpc":"2.0","method":"a","id":1}`, Call, ReasonNone)
	f(`{"jsonrpc":"2.0","method":"a","id":1 }`, Call, ReasonNone)
	f(`{"jsonrpc":"2.0","method":"a","id":1}`+"\n", Call, ReasonNone)
	f(`{"method":"a","jsonrpc":"2.0"}`, Notification, ReasonNone) // "jsonrpc" near the end of input
	f(`{"method":"a","id":"x","jsonrpc":"2.0" }`, Call, ReasonNone)

	// Duplicates, each known member, raw and escaped.
	f(req(`"method":"a","method":"a","id":1`), Invalid, ReasonDuplicate)
	f(req(`"method":"a","m\u0065thod":"b","id":1`), Invalid, ReasonDuplicate)
	f(req(`"method":"a","id":1,"id":2`), Invalid, ReasonDuplicate)
	f(req(`"method":"a","params":[],"params":[],"id":1`), Invalid, ReasonDuplicate)
	f(req(`"method":"a","_meta":{},"_meta":{},"id":1`), Invalid, ReasonDuplicate)
	f(`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"a","id":1}`, Invalid, ReasonDuplicate)
	f(req(`"result":1,"result":1,"id":1`), Invalid, ReasonDuplicate)
	f(req(`"error":{},"\u0065rror":{},"id":1`), Invalid, ReasonDuplicate)

	// Order of checks: duplicate, version, method, mixed, params, id.
	f(`{"method":"a","method":"a"}`, Invalid, ReasonDuplicate)
	f(`{"jsonrpc":"1.0","method":1,"params":1,"id":true}`, Invalid, ReasonVersion)
	f(req(`"method":1,"result":1,"params":1,"id":true`), Invalid, ReasonMethod)
	f(req(`"method":"a","result":1,"params":1,"id":true`), Invalid, ReasonMixed)
	f(req(`"method":"a","params":1,"id":true`), Invalid, ReasonParams)
	f(req(`"result":1,"error":1`), Invalid, ReasonMixed)
	f(req(`"error":1`), Invalid, ReasonResponse)
	f(req(`"error":1,"id":true`), Invalid, ReasonID)

	// Not an object.
	f(`1`, Invalid, ReasonNotObject)
	f(` -1.5e3 `, Invalid, ReasonNotObject)
	f(`"x"`, Invalid, ReasonNotObject)
	f(`true`, Invalid, ReasonNotObject)
	f(`false`, Invalid, ReasonNotObject)
	f(`null`, Invalid, ReasonNotObject)

	// Batches.
	f(`[]`, Invalid, ReasonEmptyBatch)
	f(" [ \n ] ", Invalid, ReasonEmptyBatch)
	f(`[1]`, Batch, ReasonNone)
	f(`[[]]`, Batch, ReasonNone)
	f(batch10Msg, Batch, ReasonNone)
}

func TestFields(t *testing.T) {
	var p Parser
	// f checks the recorded slices; "<nil>" stands for nil.
	f := func(in, method, id, params, meta string) {
		t.Helper()
		m, err := p.Parse([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, method, show(m.Method), in)
		assert.Equal(t, id, show(m.ID), in)
		assert.Equal(t, params, show(m.Params), in)
		assert.Equal(t, meta, show(m.Meta), in)
	}
	// Ids come back byte for byte.
	f(req(`"method":"a","id":9007199254740993`), "a", `9007199254740993`, "<nil>", "<nil>")
	f(req(`"method":"a","id":1e3`), "a", `1e3`, "<nil>", "<nil>")
	f(req(`"method":"a","id":-0`), "a", `-0`, "<nil>", "<nil>")
	f(req(`"method":"a","id":1.5`), "a", `1.5`, "<nil>", "<nil>")
	f(req(`"method":"a","id":"a\u0041"`), "a", `"a\u0041"`, "<nil>", "<nil>")
	f(req(`"method":"a","id":null`), "a", `null`, "<nil>", "<nil>")
	f(req(`"method":"a","id":  -12.50E+07  `), "a", `-12.50E+07`, "<nil>", "<nil>")
	f(req(`"method":"a"`), "a", "<nil>", "<nil>", "<nil>")
	// The id is kept when it is valid even if the message is not; dropped when twice or invalid.
	f(req(`"method":7,"id":"k"`), "<nil>", `"k"`, "<nil>", "<nil>")
	f(`{"jsonrpc":"1","method":"a","id":3}`, "a", `3`, "<nil>", "<nil>")
	f(req(`"params":{},"id":5`), "<nil>", `5`, `{}`, "<nil>")
	f(req(`"method":"a","id":1,"id":1`), "a", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"a","id":true`), "a", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"a","id":{"x":1}`), "a", "<nil>", "<nil>", "<nil>")
	// Params and meta are raw, with inner whitespace, without the surrounding whitespace.
	f(req(`"method":"a","params": [1, 2 ,{"b" : "c"}] ,"id":2`), "a", `2`, `[1, 2 ,{"b" : "c"}]`, "<nil>")
	f(req(`"method":"a","params":"x"`), "a", "<nil>", `"x"`, "<nil>")
	f(req(`"_meta" : {"progressToken":"t\n1"} ,"method":"a"`), "a", "<nil>", "<nil>", `{"progressToken":"t\n1"}`)
	// Method names are unescaped.
	f(req(`"method":"sub\u0074ract"`), "subtract", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"a\"b\\c\/d\b\f\n\r\t"`), "a\"b\\c/d\b\f\n\r\t", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"\ud83d\ude00 caf\u00e9"`), "😀 café", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"\ud800x"`), "\uFFFDx", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"😀"`), "😀", "<nil>", "<nil>", "<nil>")
	f(req(`"method":""`), "", "<nil>", "<nil>", "<nil>")
	f(req(`"method":"rpc.discover","method":"x"`), "rpc.discover", "<nil>", "<nil>", "<nil>") // first wins

	// Results and errors, and the Seen bits.
	m, err := p.Parse([]byte(`{"jsonrpc":"2.0","result":{"a": 1},"id":1}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a": 1}`, string(m.Result))
	assert.Nil(t, m.Error)
	assert.Equal(t, HasJSONRPC|HasResult|HasID, m.Seen)
	m, err = p.Parse([]byte(`{"jsonrpc":"2.0","error":{"code":1},"id":1,"params":[],"_meta":1,"method":2}`))
	require.NoError(t, err)
	assert.Equal(t, `{"code":1}`, string(m.Error))
	assert.Equal(t, HasJSONRPC|HasError|HasID|HasParams|HasMeta|HasMethod, m.Seen)

	// Slices end at the value: appending never overwrites the input.
	in := []byte(req(`"method":"ab","params":[1],"id":2`))
	m, err = p.Parse(in)
	require.NoError(t, err)
	_ = append(m.Params, 'X')
	_ = append(m.Method, 'X')
	_ = append(m.ID, 'X')
	assert.Equal(t, req(`"method":"ab","params":[1],"id":2`), string(in))

	// An escaped method name lives in the Parser's scratch; many of them in one batch stay intact.
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 50 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(req(`"method":"m\u00e9thode` + strings.Repeat("x", i) + `"`))
	}
	sb.WriteByte(']')
	m, err = p.Parse([]byte(sb.String()))
	require.NoError(t, err)
	require.Equal(t, Batch, m.Kind)
	for i, bm := range p.Batch() {
		assert.Equal(t, "méthode"+strings.Repeat("x", i), string(bm.Method))
	}
}

func TestBatch(t *testing.T) {
	type member struct {
		kind   Kind
		reason Reason
		id     string
	}
	p := Parser{MaxBatch: 3}
	f := func(in string, kind Kind, reason Reason, want ...member) {
		t.Helper()
		m, err := p.Parse([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, kind, m.Kind, in)
		assert.Equal(t, reason, m.Reason, in)
		var got []member
		for _, bm := range p.Batch() {
			got = append(got, member{bm.Kind, bm.Reason, show(bm.ID)})
		}
		assert.Equal(t, want, got, in)
	}
	call := member{Call, ReasonNone, "1"}
	f(`[`+smallMsg+`]`, Batch, ReasonNone, call)
	f(`[ `+smallMsg+` , `+req(`"method":"n"`)+` ]`, Batch, ReasonNone, call, member{Notification, ReasonNone, "<nil>"})
	f(`[1,2,3]`, Batch, ReasonNone, member{Invalid, ReasonNotObject, "<nil>"}, member{Invalid, ReasonNotObject, "<nil>"},
		member{Invalid, ReasonNotObject, "<nil>"})
	f(`["a",null,{}]`, Batch, ReasonNone, member{Invalid, ReasonNotObject, "<nil>"}, member{Invalid, ReasonNotObject, "<nil>"},
		member{Invalid, ReasonVersion, "<nil>"})
	f(`[[],[`+smallMsg+`]]`, Batch, ReasonNone, member{Invalid, ReasonNestedBatch, "<nil>"}, member{Invalid, ReasonNestedBatch, "<nil>"})
	f(`[{"jsonrpc":"2.0","result":1,"id":"r"},{"jsonrpc":"2.0","method":"a","id":"a\u0041","id":1}]`, Batch, ReasonNone,
		member{Result, ReasonNone, `"r"`}, member{Invalid, ReasonDuplicate, "<nil>"})
	f(`[{"jsonrpc":"2.0","method":1,"id":-0}]`, Batch, ReasonNone, member{Invalid, ReasonMethod, "-0"})
	f(`[]`, Invalid, ReasonEmptyBatch)
	f(`[1,2,3]`, Batch, ReasonNone, member{Invalid, ReasonNotObject, "<nil>"}, member{Invalid, ReasonNotObject, "<nil>"},
		member{Invalid, ReasonNotObject, "<nil>"})
	f(`[1,2,3,4]`, Invalid, ReasonBatchLimit)
	f(`[`+strings.Repeat(smallMsg+",", 100)+smallMsg+`]`, Invalid, ReasonBatchLimit)
	// Batch() is nil after a message that is not a batch.
	f(smallMsg, Call, ReasonNone)

	// Over the limit, invalid JSON still wins.
	for _, in := range []string{`[1,2,3,4,{]`, `[1,2,3,4,"\x"]`, `[1,2,3,4,[}]`, `[1,2,3,4,5`, `[1,2,3,4,5,]`, "[1,2,3,4,\"\xff\"]"} {
		_, err := p.Parse([]byte(in))
		assert.Error(t, err, in)
		assert.Nil(t, p.Batch())
	}
	// The default limit.
	var d Parser
	m, err := d.Parse([]byte(`[` + strings.Repeat(`1,`, DefaultMaxBatch-1) + `1]`))
	require.NoError(t, err)
	assert.Equal(t, Batch, m.Kind)
	assert.Len(t, d.Batch(), DefaultMaxBatch)
	m, err = d.Parse([]byte(`[` + strings.Repeat(`1,`, DefaultMaxBatch) + `1]`))
	require.NoError(t, err)
	assert.Equal(t, ReasonBatchLimit, m.Reason)
	assert.Nil(t, d.Batch())
}

func TestReset(t *testing.T) {
	var p Parser
	m, err := p.Parse([]byte(`[` + smallMsg + `]`))
	require.NoError(t, err)
	require.Equal(t, Batch, m.Kind)
	p.Reset()
	assert.Nil(t, p.Batch())
	m, err = p.Parse([]byte(smallMsg))
	require.NoError(t, err)
	assert.Equal(t, Call, m.Kind)
}

func TestClone(t *testing.T) {
	var p Parser
	in := []byte(req(`"method":"s\u0075m","params":[1,2],"_meta":{"k":1},"id":"x"`))
	m, err := p.Parse(in)
	require.NoError(t, err)
	c := m.Clone()
	assert.Equal(t, *m, c)
	for i := range in {
		in[i] = '#'
	}
	_, _ = p.Parse([]byte(req(`"method":"\u0078\u0078\u0078"`)))
	assert.Equal(t, "sum", string(c.Method))
	assert.Equal(t, `"x"`, string(c.ID))
	assert.Equal(t, `[1,2]`, string(c.Params))
	assert.Equal(t, `{"k":1}`, string(c.Meta))
	assert.Nil(t, c.Result)
	assert.Nil(t, c.Error)

	m, err = p.Parse([]byte(req(`"method":""`)))
	require.NoError(t, err)
	c = m.Clone()
	assert.NotNil(t, c.Method)
	assert.Empty(t, c.Method)
	assert.Nil(t, c.ID)
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "invalid", Invalid.String())
	assert.Equal(t, "call", Call.String())
	assert.Equal(t, "notification", Notification.String())
	assert.Equal(t, "result", Result.String())
	assert.Equal(t, "error", ErrorResponse.String())
	assert.Equal(t, "batch", Batch.String())
	assert.Equal(t, "unknown", Kind(99).String())
	assert.Equal(t, `jsonrpc must be "2.0"`, ReasonVersion.String())
	assert.Equal(t, "duplicate member", ReasonDuplicate.String())
	assert.Equal(t, "", ReasonNone.String())
	for r := ReasonNotObject; r <= ReasonBatchLimit; r++ {
		s := r.String()
		assert.NotEmpty(t, s)
		assert.Equal(t, strings.ToLower(s), s)
	}
	assert.Equal(t, "unknown reason", Reason(99).String())
}

func TestUnknownDuplicates(t *testing.T) {
	var p Parser
	f := func(in string, want Reason) {
		t.Helper()
		m, err := p.Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if m.Reason != want {
			t.Fatalf("%s: reason %v, want %v", in, m.Reason, want)
		}
	}
	call := `"jsonrpc":"2.0","method":"m","id":1`
	f(`{`+call+`,"foo":1,"bar":2}`, ReasonNone)
	f(`{`+call+`,"foo":1,"foo":2}`, ReasonDuplicate)
	f(`{"foo":1,`+call+`,"f\u006fo":2}`, ReasonDuplicate)
	f(`{`+call+`,"a":1,"b":2,"c":3,"d":4,"e":5,"b":6}`, ReasonDuplicate)
	f(`{`+call+`,"params":{"x":1,"x":2}}`, ReasonNone) // nested objects belong to the handler
	f(`{`+call+`,"Foo":1,"foo":2}`, ReasonNone)
	f(`[{`+call+`,"foo":1},{`+call+`,"foo":1}]`, ReasonNone)
	m, _ := p.Parse([]byte(`[{` + call + `,"foo":1},{` + call + `,"foo":1,"foo":2}]`))
	if b := p.Batch(); m.Kind != Batch || b[0].Reason != ReasonNone || b[1].Reason != ReasonDuplicate {
		t.Fatalf("batch members: %+v", b)
	}
}
