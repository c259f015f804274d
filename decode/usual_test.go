package decode

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// usualInputs are messages around Parse's fast path (Parser.usual, Parser.usualResponse): the ones it takes (taken)
// and the ones it must leave to the general path.
var usualInputs = []struct {
	in    string
	taken bool
}{
	{`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, true},
	{`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"req-3"}`, true},
	{`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, true},
	{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":"file:///x y"}}`, true},
	{`{"jsonrpc":"2.0","params":["a"],"id":null,"method":"m"}`, true},
	{`{"jsonrpc":"2.0","method":""}`, true},
	{`{"jsonrpc":"2.0","method":"a","id":-0}`, true},
	{`{"jsonrpc":"2.0","method":"a","id":1.5e3}`, true},
	{`{"jsonrpc":"2.0","method":"a","id":9007199254740993}`, true},
	{`{"jsonrpc":"2.0","method":"a","id":"a\u0041\n"}`, true},
	{`{"jsonrpc":"2.0","method":"é€😀","params":["\u00e9",{"a":[1,{"b":null}]}]}`, true},
	{`{"jsonrpc":"2.0","method":"a","params":[1, 2]}`, true}, // spaced params: compact false
	{`{"jsonrpc":"2.0","method":"a","params":{}}`, true},
	{`{"jsonrpc":"2.0","method":"a","params":[-1,0,10,-20]}`, true},
	// Responses, as a client gets them.
	{`{"jsonrpc":"2.0","id":1,"result":2}`, true},
	{`{"jsonrpc":"2.0","result":19,"id":1}`, true},
	{`{"jsonrpc":"2.0","id":"abc","result":{"blockHash":"0x1","logs":[{"a":1}],"n":null}}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":"0x10d4f"}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":"\u00e9\n"}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":null}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":true}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":false}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":-1.5e3}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":[1,2,"x"]}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":[ 1 ]}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}`, true},
	{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, true},
	{`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`, true},
	{`{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`, true}, // invalid (both), classified as object would
	{`{"jsonrpc":"2.0","result":"abc"}`, false},
	{`{"jsonrpc":"2.0","id":[],"result":1}`, false},
	{`{"jsonrpc":"2.0","id":1,"error":"x"}`, false},
	{`{"jsonrpc":"2.0","id":1,"error":null}`, false},
	{`{"jsonrpc":"2.0","id":1,"error":[]}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":1,"params":[]}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":1,"result":2}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":1,"_meta":{}}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":tru}`, false},
	{`{"jsonrpc":"2.0","id":1,"result": 1}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":01}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":[1,}`, false},
	{`{"jsonrpc":"2.0","id":1,"result":"` + "\xff" + `"}`, false},

	// Left to the general path: valid or not, answered the same (the differential below).
	{`{"jsonrpc": "2.0","method":"a","id":1}`, false},
	{` {"jsonrpc":"2.0","method":"a","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1} `, true},
	{`{"jsonrpc":"2.0","method":"a","id":1}` + "\r\n", true},
	{`{"jsonrpc":"2.0", "method":"a","id":1}`, false},
	{`{"jsonrpc":"2.0","method" :"a","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a" ,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1 }`, false},
	{`{"jsonrpc":"2.0","method":"a\u0062","id":1}`, false},
	{`{"jsonrpc":"2.0","m\u0065thod":"a","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","method":"b","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1,"id":2}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":[],"params":[]}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":1,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":"x","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":null,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":1,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":null,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":true}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":{}}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":nul}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":nullx}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":01}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1.}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":-}`, false},
	{`{"jsonrpc":"2.0","params":[1],"id":1}`, false},
	{`{"jsonrpc":"2.0","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","result":2,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","_meta":{},"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","x":1,"id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1,}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1}}`, false},
	{`{"jsonrpc":"2.0","method":"a","id":1`, false},
	{`{"jsonrpc":"2.0","method":"a","params":[1,2}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":{"a":1,"a":2}}`, true}, // duplicates inside params are the params' business
	{`{"jsonrpc":"2.0","method":"a","params":[1,2],"id":1}x`, false},
	{`{"jsonrpc":"2.0","method":"a` + "\x01" + `","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a` + "\xff" + `","id":1}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":["` + "\xc3" + `"]}`, false},
	{`{"jsonrpc":"2.0","method":"a","params":[[[[[[[[[[1]]]]]]]]]]}`, true},
	{`{"jsonrpc":"2.1","method":"a","id":1}`, false},
	{`{"jsonrpc":"2.0"}`, false},
	{`{"jsonrpc":"2.0",}`, false},
	{`{"jsonrpc":"2.0","`, false},
	{`{"jsonrpc":"2.0","method":"a"`, false},
	{`{"jsonrpc":"2.0","method":"a":1}`, false},
}

// TestUsual checks that the fast path takes the usual messages, alone and as a batch's
// members, and that every input gets the same answer, Message or error, with it and without it.
func TestUsual(t *testing.T) {
	var batch []byte
	var starts []int
	for _, tc := range usualInputs {
		var p Parser
		var m Message
		var env envelope
		p.sc.SetLimit(0) // as Parse does
		j := fast(&p, []byte(tc.in), 0, 0, &m, &env)
		if got := j > 0 && scan.SkipWS([]byte(tc.in), j) == len(tc.in); got != tc.taken {
			t.Errorf("usual(%q) took it: %v, want %v", tc.in, got, tc.taken)
		}
		if j == 0 && !m.equal(&Message{}) {
			t.Errorf("usual(%q) wrote %+v before leaving it", tc.in, m)
		}
		checkUsual(t, []byte(tc.in), 0)
		// Every input as a batch's member (among the others), and alone in a batch.
		checkUsual(t, []byte("["+tc.in+"]"), 0)
		checkUsual(t, []byte(`[`+tc.in+`,{"jsonrpc":"2.0","method":"x","id":2}]`), 0)
		if tc.taken && strings.TrimSpace(tc.in) == tc.in {
			if len(batch) > 0 {
				batch = append(batch, ',')
			} else {
				batch = append(batch, '[')
			}
			starts = append(starts, len(batch))
			batch = append(batch, tc.in...)
		}
	}
	batch = append(batch, ']')
	checkUsual(t, batch, 0)
	var p Parser
	p.sc.SetLimit(0)
	for _, at := range starts {
		var m Message
		var env envelope
		if fast(&p, batch, at, 1, &m, &env) == 0 {
			t.Errorf("usual did not take the batch member at %d: %.40q", at, batch[at:])
		}
	}
	// The depth limit: params at the limit and one past it, alone and in a batch.
	for _, deep := range []string{
		`{"jsonrpc":"2.0","method":"a","params":[[[1]]],"id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":[[[1]]]}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":{"b":[1]}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":[[1]]}}`,
	} {
		for depth := 1; depth <= 6; depth++ {
			checkUsual(t, []byte(deep), depth)
			checkUsual(t, []byte("["+deep+"]"), depth)
		}
	}
}

// fast is Parse's fast path: usual, then usualResponse.
func fast(p *Parser, data []byte, i, depth int, m *Message, env *envelope) int {
	if j := p.usual(data, i, depth, m, env); j > 0 {
		return j
	}
	return p.usualResponse(data, i, depth, m, env)
}

// checkUsual parses data with the fast path and without it and fails on any difference.
func checkUsual(t *testing.T, data []byte, maxDepth int) {
	t.Helper()
	fast := Parser{MaxDepth: maxDepth}
	slow := Parser{MaxDepth: maxDepth}
	m1, err1 := fast.Parse(data)
	usualOn = false
	m2, err2 := slow.Parse(data)
	usualOn = true
	if (err1 == nil) != (err2 == nil) {
		t.Fatalf("Parse(%q), depth %d: error %v with the fast path, %v without", data, maxDepth, err1, err2)
	}
	if err1 != nil {
		var s1, s2 *SyntaxError
		if !errors.As(err1, &s1) || !errors.As(err2, &s2) || *s1 != *s2 {
			t.Fatalf("Parse(%q), depth %d: error %v with the fast path, %v without", data, maxDepth, err1, err2)
		}
		return
	}
	if !m1.equal(m2) {
		t.Fatalf("Parse(%q), depth %d:\n fast %+v\n slow %+v", data, maxDepth, *m1, *m2)
	}
	if !bytes.Equal(fast.Input(), slow.Input()) {
		t.Fatalf("Parse(%q): Input differs", data)
	}
	if m1.Kind == Batch {
		b1, b2 := fast.Batch(), slow.Batch()
		if len(b1) != len(b2) {
			t.Fatalf("Parse(%q): %d members with the fast path, %d without", data, len(b1), len(b2))
		}
		for k := range b1 {
			if !b1[k].equal(&b2[k]) {
				t.Fatalf("Parse(%q), member %d:\n fast %+v\n slow %+v", data, k, b1[k], b2[k])
			}
		}
	}
}

// equal reports whether m and o are the same message: every field, nil against empty slices
// included (Method "" is empty and non-nil).
func (m *Message) equal(o *Message) bool {
	same := func(a, b []byte) bool { return bytes.Equal(a, b) && (a == nil) == (b == nil) }
	return m.Kind == o.Kind && m.Seen == o.Seen && m.Reason == o.Reason && m.compact == o.compact &&
		same(m.Method, o.Method) && same(m.ID, o.ID) && same(m.Params, o.Params) &&
		same(m.Result, o.Result) && same(m.Error, o.Error) && same(m.Meta, o.Meta)
}

// FuzzUsual is the differential of Parse with and without its fast path, seeded with the
// usual messages and those around them.
func FuzzUsual(f *testing.F) {
	for _, tc := range usualInputs {
		f.Add([]byte(tc.in), uint8(0))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","method":"a","params":[[[1]]],"id":1}`), uint8(2))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"a","params":[1],"id":1},{"jsonrpc":"2.0","method":"b"}]`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, depth uint8) {
		checkUsual(t, data, int(depth%8))
	})
}
