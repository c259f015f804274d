package fuzz

import (
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/internal/vectors"
)

// req builds a request object from its members after "jsonrpc":"2.0".
func req(members string) string { return `{"jsonrpc":"2.0",` + members + `}` }

// nest returns inner wrapped in n arrays.
func nest(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// nestObj returns inner wrapped in n objects {"a":...}.
func nestObj(n int, inner string) string {
	return strings.Repeat(`{"a":`, n) + inner + strings.Repeat("}", n)
}

// tricky are the hand-written seeds: the corners of PROTOCOL.md.
var tricky = []string{
	// Member names with escapes, duplicates after unescaping, unknown duplicates.
	req(`"m\u0065thod":"echo","params":[1],"id":1`),
	`{"\u006asonrpc":"2.0","method":"echo","id":1}`,
	`{"\u006Asonrpc":"2\u002e0","\u006d\u0065\u0074\u0068\u006f\u0064":"\u0065cho","\u0069\u0064":"\u0069"}`,
	req(`"method":"a","method":"b","id":1`),
	req(`"method":"a","m\u0065thod":"b","id":1`),
	req(`"method":"a","id":1,"id":2`),
	req(`"method":"a","id":1,"\u0069d":1`),
	req(`"method":"a","params":[],"params":{}`),
	req(`"method":"a","x":1,"x":2,"id":1`),
	req(`"method":"a","x":1,"\u0078":2,"id":1`),
	req(`"method":"a","\ud800":1,"\udc00":2,"id":1`),
	req(`"method":"a","\ud800":1,"\ufffd":2,"id":1`),
	req(`"method":"a","\ud83d\ude00":1,"😀":2,"id":1`),
	req(`"method":"a","_meta":{},"_m\u0065ta":{},"id":1`),
	req(`"method":"a","Method":"b","ID":1,"id":2`),
	`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"a","id":1}`,
	`{"jsonrpc":"2.0","result":1,"result":2,"id":1}`,
	`{"":1,"":2}`,
	// Ids carried byte for byte.
	req(`"method":"echo","id":9007199254740993`),
	req(`"method":"echo","id":1e3`),
	req(`"method":"echo","id":-0`),
	req(`"method":"echo","id":1.5`),
	req(`"method":"echo","id":-1.5E+300`),
	req(`"method":"echo","id":"a\u0041"`),
	req(`"method":"echo","id":"\ud800"`),
	req(`"method":"echo","id":""`),
	req(`"method":"echo","id":null`),
	req(`"method":"echo","id":true`),
	req(`"method":"echo","id":[1]`),
	req(`"method":"echo","id":{}`),
	req(`"method":1,"id":"keep"`),
	// Version.
	`{"jsonrpc":2.0,"method":"a","id":1}`,
	`{"jsonrpc":"2","method":"a","id":1}`,
	`{"jsonrpc":"2.0.0","method":"a","id":1}`,
	`{"jsonrpc":"2\u002e0","method":"a","id":1}`,
	`{"jsonrpc":null,"method":"a","id":1}`,
	`{"method":"a","id":1}`,
	`{}`,
	// Method, params, results and errors.
	req(`"method":"","id":1`),
	req(`"method":null,"id":1`),
	req(`"method":"a","params":"x","id":1`),
	req(`"method":"a","params":null,"id":1`),
	req(`"method":"a","params":1`),
	req(`"method":"a","result":1,"id":1`),
	req(`"method":"a","error":{},"id":1`),
	req(`"result":1,"error":{},"id":1`),
	req(`"result":1`),
	req(`"result":null,"id":null`),
	req(`"error":{"code":1,"message":"m"},"id":"x"`),
	req(`"error":1,"id":1`),
	req(`"error":{}`),
	req(`"result":1,"id":true`),
	req(`"id":1`),
	// Demo methods (FuzzProcess).
	req(`"method":"subtract","params":[9223372036854775807,-1],"id":1`),
	req(`"method":"subtract","params":[-9223372036854775808,9223372036854775807],"id":1`),
	req(`"method":"subtract","params":{"minuend":1e308,"subtrahend":-1e308},"id":1`),
	req(`"method":"subtract","params":{"minuend":1,"minuend":2},"id":1`),
	req(`"method":"sum","params":[1.5,2,-0,1e-400,1e400],"id":1`),
	req(`"method":"sum","params":[1,"2"],"id":1`),
	req(`"method":"sum","params":{},"id":1`),
	req(`"method":"echo","params":{"a":[1,"\u0000",{"b":null}]},"id":"e"`),
	req(`"method":"echo","id":"no params"`),
	req(`"method":"get_data","id":1`),
	req(`"method":"update","params":[1]`),
	req(`"method":"notify_hello","params":[7],"id":2`),
	req(`"method":"sleep","params":[100000],"id":1`),
	req(`"method":"sleep","params":{"ms":0},"id":1`),
	req(`"method":"sleep","params":[9223372036854775807],"id":1`),
	req(`"method":"sleep","params":[-1],"id":1`),
	req(`"method":"fail","params":{"code":-32000,"message":"m\u00e9\ud800\"","data":{"x":[1]}},"id":1`),
	req(`"method":"fail","params":{"code":4294967296,"message":"m"},"id":1`),
	req(`"method":"fail","params":{"code":1,"message":""},"id":1`),
	req(`"method":"fail","params":{"code":1.0,"message":"x"},"id":1`),
	req(`"method":"panic","id":1`),
	req(`"method":"panic"`),
	req(`"method":"rpc.discover","id":1`),
	req(`"method":"nope","id":1`),
	req(`"method":"echo\u0000","id":1`),
	req(`"method":"ech\u006f","params":[1],"id":1`),
	`[` + req(`"method":"sleep","params":[1000],"id":1`) + `,` + req(`"method":"sleep","params":[1000],"id":2`) + `,` +
		req(`"method":"sleep","params":[0]`) + `]`,
	// Batches.
	`[]`, ` [ ] `, `[1]`, `[1,2,3]`, `[[]]`, `[[1],{}]`, `[{}]`, `[null,"x",true]`,
	`[` + req(`"method":"echo","id":1`) + `,` + req(`"method":"echo","id":1`) + `,` + req(`"method":"update"`) + `]`,
	`[` + req(`"method":"update"`) + `,` + req(`"method":"notify_sum","params":[1]`) + `]`,
	`[` + req(`"result":1,"id":1`) + `,` + req(`"method":"nope","id":"x"`) + `,{"id":7}]`,
	`[` + req(`"method":"echo","id":1`) + `,]`,
	`[` + req(`"method":"echo","id":1`) + ` ` + req(`"method":"echo","id":2`) + `]`,
	// Not objects, whitespace, empty.
	``, ` `, "\t\r\n", `1`, `-0`, `"x"`, `null`, `true`, `false`, `1e3`, ` {} `,
	"\xef\xbb\xbf{}", // a byte-order mark is not JSON
	// Syntax.
	`{"a":1,}`, `{"a" 1}`, `{1:2}`, `[01]`, `[1.]`, `[.5]`, `[+1]`, `["\x"]`, `["\u12"]`, `{"a":tru}`,
	`{"a":nul}`, `{}{}`, `{} x`, `{"a":"b"`, `{"a"`, `{`, `[`, `"`, `"\`, `-`, `1e`, `1e+`,
	"\"\x01\"",
	// Invalid UTF-8: lone continuation, overlong, surrogate, above U+10FFFF, truncated sequence.
	"{\"jsonrpc\":\"2.0\",\"method\":\"\x80\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"\xc0\xaf\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":[\"\xed\xa0\x80\"],\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":[\"\xf4\x90\x80\x80\"],\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"\xc3\":1}",
	"[\"\xe2\x82\"]",
	"[\"\xe2\x82",
	"[\"\xff\", [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]",
	// Deep nesting: at, and just over, small limits and the default.
	nest(1, ""), nest(2, ""), nest(3, "1"), nest(5, `{}`), nestObj(4, "1"),
	`[` + req(`"method":"echo","params":`+nest(3, "")+`,"id":1`) + `]`,
	`["` + strings.Repeat(`[`, 20) + `"]`,
	`{"a":"\"[[[[[[[[[["}`,
}

// deep are messages at and just over the default depth limit (1000). They are unit tests, not
// fuzz seeds: the fuzzer would spend its time mutating and minimizing kilobytes of brackets,
// and the small limits FuzzScanner and FuzzProcess pick cover the same code.
var deep = []string{
	req(`"method":"echo","params":` + nest(998, "") + `,"id":1`),
	req(`"method":"echo","params":` + nest(999, "") + `,"id":1`),
	nest(1000, ""), nest(1001, ""), nest(1001, "1") + "x", nest(1500, "")[:1500],
	"[" + nestObj(999, "1") + "]", "[" + nestObj(998, "1") + "]",
	"[" + req(`"method":"echo","params":`+nest(997, `"x"`)+`,"id":"d"`) + "]",
	"[" + req(`"method":"echo","params":`+nest(998, `"x"`)+`,"id":"d"`) + "]",
	nest(1001, "") + "\xff", "[\"\xff\"," + nest(1001, "") + "]",
}

// truncated are messages whose every prefix is a seed.
var truncated = []string{
	req(`"method":"subtract","params":{"minuend":42,"subtrahend":-2.5e1},"id":"a\u0041","_meta":{"t":[true,false,null]}}`),
	`[` + req(`"method":"sum","params":[1,2],"id":1`) + `,` + req(`"result":"\ud83d\ude00","id":2`) + `]`,
}

// seeds returns the inputs the fuzz targets start from: the specification vectors' requests,
// the benchmark messages, the tricky table, the prefixes of a few messages and the
// JSONTestSuite files (jsontestsuite_test.go) up to maxSuiteSeed bytes.
func seeds(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	vs, err := vectors.Spec()
	if err != nil {
		tb.Fatal(err)
	}
	for _, v := range vs {
		out = append(out, []byte(v.Request))
	}
	for _, c := range bench.Cases() {
		out = append(out, c.Msg)
	}
	for _, s := range tricky {
		out = append(out, []byte(s))
	}
	for _, s := range truncated {
		for n := range len(s) {
			out = append(out, []byte(s[:n]))
		}
	}
	for _, f := range jsonTestSuite(tb) {
		if len(f.data) <= maxSuiteSeed {
			out = append(out, f.data)
		}
	}
	return out
}
