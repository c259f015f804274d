package mcp_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// RouteIn's tags mark region, zone (inside an unnamed struct) and shard
// with x-mcp-header.
type RouteIn struct {
	Region string `json:"region" mcpheader:"Region"`
	Query  string `json:"query,omitempty"`
	Target struct {
		Zone string `json:"zone,omitempty" mcpheader:"Zone"`
	} `json:"target"`
	Shard *int64 `json:"shard,omitempty" mcpheader:"Shard"`
	Fast  bool   `json:"fast,omitempty" mcpheader:"Fast"`
}

func echoArgs(_ context.Context, in map[string]any) (*mcp.Result, error) {
	b, _ := json.Marshal(in)
	return mcp.TextResult(string(b)), nil
}

// TestParamHeaderSchema: a struct tag writes the x-mcp-header mark into
// the derived schema (a marked integer's bounds narrowed to the safe
// integers); a tag on a named struct's member is refused, since the schema
// refers to it under $defs.
func TestParamHeaderSchema(t *testing.T) {
	tool := mcp.NewTool("route", "", func(context.Context, RouteIn) (*mcp.Result, error) { return nil, nil })
	require.JSONEq(t, `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"query":{"type":"string"},
		"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
		"shard":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991,"x-mcp-header":"Shard"},
		"fast":{"type":"boolean","x-mcp-header":"Fast"}},
		"required":["region","target"]}`, string(tool.InputSchema))
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.AddTool(tool))

	type Named struct {
		Zone string `json:"zone" mcpheader:"Zone"`
	}
	type Outer struct {
		Target Named `json:"target"`
	}
	bad := mcp.NewTool("bad", "", func(context.Context, Outer) (*mcp.Result, error) { return nil, nil })
	err := s.AddTool(bad)
	require.ErrorContains(t, err, "target is a mcp_test.Named")
	type List struct {
		Items []struct {
			Zone string `json:"zone" mcpheader:"Zone"`
		} `json:"items"`
	}
	err = s.AddTool(mcp.NewTool("list", "", func(context.Context, List) (*mcp.Result, error) { return nil, nil }))
	require.ErrorContains(t, err, "items is a []struct")
	type Float struct {
		Score float64 `json:"score" mcpheader:"Score"`
	}
	err = s.AddTool(mcp.NewTool("float", "", func(context.Context, Float) (*mcp.Result, error) { return nil, nil }))
	require.ErrorContains(t, err, "score: a header mark must be on a property of type string, integer or boolean")
}

// TestParamHeaderMarks: AddTool checks a hand-written schema's marks as
// SEP-2243 lists them (the client-side scenario's invalid tools among
// them), and passes a valid one through intact.
func TestParamHeaderMarks(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	n := 0
	f := func(schema, wantErr string) {
		t.Helper()
		n++
		tool := mcp.NewTool("t"+itoa(n), "", echoArgs)
		tool.InputSchema = json.RawMessage(schema)
		err := s.AddTool(tool)
		if wantErr == "" {
			require.NoError(t, err, schema)
			require.Equal(t, schema, string(tool.InputSchema))
			return
		}
		require.ErrorContains(t, err, wantErr, schema)
	}
	prop := func(p string) string { return `{"type":"object","properties":{` + p + `}}` }
	f(prop(`"a":{"type":"string","x-mcp-header":"Region"}`), "")
	f(prop(`"a":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}`), "")
	f(prop(`"a":{"type":["string","null"],"x-mcp-header":"A"}`), "")
	f(prop(`"o":{"type":"object","properties":{"p":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Deep"}}}}}`), "")
	f(prop(`"x-mcp-header":{"type":"string","x-mcp-header":"Named-Like-The-Mark"}`), "")
	f(prop(`"a":{"type":"string","const":{"x-mcp-header":"instance"},"default":{"x-mcp-header":"x"}}`), "")
	f(`{"type":"object","$defs":{"x-mcp-header":{"type":"string"}}}`, "")
	f(prop(`"a":{"type":"string","x-mcp-header":"X!#$%&'*+-.^_`+"`"+`|~9"}`), "")

	f(`{"type":"object","x-mcp-header":"Root"}`, "the root: a header mark must be on a property")
	f(prop(`"a":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}`), "a: a header mark must be on a property")
	f(`{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "a header mark must be on a property")
	f(`{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`, "a header mark must be on a property")
	f(`{"type":"object","if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`, "a header mark must be on a property")
	f(prop(`"a":{"type":"number","x-mcp-header":"Score"}`), "a: a header mark must be on a property of type string, integer or boolean")
	f(prop(`"a":{"type":"null","x-mcp-header":"Nil"}`), "of type string, integer or boolean")
	f(prop(`"a":{"type":"object","x-mcp-header":"Obj"}`), "of type string, integer or boolean")
	f(prop(`"a":{"x-mcp-header":"Untyped"}`), "of type string, integer or boolean")
	f(prop(`"a":{"type":["string","integer"],"x-mcp-header":"Two"}`), "of type string, integer or boolean")
	for _, name := range []string{``, `My Region`, `Region:Primary`, `Région`, `Region\t1`, `Region\u0001`, `a/b`} {
		f(prop(`"a":{"type":"string","x-mcp-header":"`+name+`"}`), "the header name must be a non-empty HTTP token")
	}
	f(prop(`"a":{"type":"string","x-mcp-header":7}`), "the header name must be a non-empty HTTP token")
	f(prop(`"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}`), "the header name Region is used twice")
	f(prop(`"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}`), "the header name myfield is used twice")
	f(`{"type":"object",`, "not valid JSON")
}

// paramServer is a 2026-07-28 endpoint with the demo tools, a tool whose
// schema marks region, zone, shard and fast (from RouteIn) and a
// hand-written one that marks a bare integer.
func paramServer(t testing.TB) *mcphttp.Handler {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	require.NoError(t, s.AddTool(mcp.NewTool("route", "", func(_ context.Context, in RouteIn) (*mcp.Result, error) {
		return mcp.TextResult("region=" + in.Region + " zone=" + in.Target.Zone), nil
	})))
	n := mcp.NewTool("count", "", echoArgs)
	n.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`)
	require.NoError(t, s.AddTool(n))
	h := mcphttp.New(s, nil)
	t.Cleanup(func() { h.Shutdown(context.Background()); s.Close() })
	return h
}

// paramCall posts a 2026-07-28 tools/call of tool with the arguments
// args and the headers hd (name, value; a name twice is sent twice).
func paramCall(h *mcphttp.Handler, tool, args string, hd ...string) *fasthttp.Response {
	return paramPost(h, tool, tool, args, hd...)
}

// paramPost is paramCall with the Mcp-Name header nameHeader.
func paramPost(h *mcphttp.Handler, nameHeader, tool, args string, hd ...string) *fasthttp.Response {
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.SetContentType("application/json")
	req.Header.Set("Mcp-Protocol-Version", mcp.Modern)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", nameHeader)
	for i := 0; i+1 < len(hd); i += 2 {
		req.Header.Add(hd[i], hd[i+1])
	}
	req.SetBodyString(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + modernMeta + `}}`)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	h.ServeFastHTTP(&ctx)
	var res fasthttp.Response
	ctx.Response.CopyTo(&res)
	return &res
}

func base64Header(s string) string {
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// TestParamHeaderCheck: on a 2026-07-28 tools/call, each marked argument
// must come with its Mcp-Param header, equal to it after Base64 decoding;
// anything else is 400 with HeaderMismatch (-32020).
func TestParamHeaderCheck(t *testing.T) {
	h := paramServer(t)
	ok := func(tool, args, want string, hd ...string) {
		t.Helper()
		res := paramCall(h, tool, args, hd...)
		require.Equal(t, 200, res.StatusCode(), "%s %v: %s", args, hd, res.Body())
		require.Contains(t, string(res.Body()), want, "%s %v", args, hd)
	}
	bad := func(tool, args, want string, hd ...string) {
		t.Helper()
		res := paramCall(h, tool, args, hd...)
		require.Equal(t, 400, res.StatusCode(), "%s %v: %s", args, hd, res.Body())
		require.Equal(t, -32020, errorCode(t, string(res.Body())), "%s %v", args, hd)
		require.Contains(t, string(res.Body()), `"id":9`)
		require.Contains(t, string(res.Body()), want, "%s %v", args, hd)
	}
	const r = "Mcp-Param-Region"
	ok("route", `{"region":"us-west1","target":{}}`, `region=us-west1 zone=`, r, "us-west1")
	ok("route", `{"region":"us-west1","target":{}}`, `region=us-west1`, "mcp-param-region", "us-west1")
	ok("route", `{"region":"us-west1","target":{}}`, `region=us-west1`, "MCP-PARAM-REGION", "us-west1")
	ok("route", `{"region":"Hello","target":{}}`, `region=Hello`, r, "=?base64?SGVsbG8=?=")
	ok("route", `{"region":"Hello, 世界","target":{}}`, `region=Hello, 世界`, r, base64Header("Hello, 世界"))
	ok("route", `{"region":" padded ","target":{}}`, `region= padded `, r, base64Header(" padded "))
	ok("route", `{"region":"line1\nline2","target":{}}`, `region=line1\nline2`, r, base64Header("line1\nline2"))
	ok("route", `{"region":"=?base64?literal?=","target":{}}`, `region==?base64?literal?=`, r, base64Header("=?base64?literal?="))
	ok("route", `{"region":"SGVsbG8=","target":{}}`, `region=SGVsbG8=`, r, "SGVsbG8=")
	ok("route", `{"region":"=?base64?SGVsbG8=","target":{}}`, `region==?base64?SGVsbG8=`, r, "=?base64?SGVsbG8=")
	ok("route", `{"region":"caf\u00e9","target":{}}`, `region=café`, r, base64Header("café"))
	ok("route", `{"region":"a b","target":{"zone":"z1"}}`, `region=a b zone=z1`, r, "a b", "Mcp-Param-Zone", "z1")
	ok("route", `{"region":"x","target":{},"shard":7,"fast":true}`, `region=x`, r, "x", "Mcp-Param-Shard", "7", "Mcp-Param-Fast", "true")
	ok("route", `{"region":"x","target":{},"shard":null}`, `region=x`, r, "x")
	ok("route", `{"region":"","target":{}}`, `region= `, r, "=?base64??=")
	// A member given twice: the last is the argument, as for the handler.
	ok("route", `{"region":"a","region":"b","target":{}}`, `region=b `, r, "b")
	bad("route", `{"region":"a","region":"b","target":{}}`, "does not match", r, "a")

	bad("route", `{"region":"us-west1","target":{}}`, "the Mcp-Param-Region header is required: the arguments have a value for region")
	bad("route", `{"region":"us-west1","target":{}}`, "Mcp-Param-Region header value 'us-east1' does not match body value 'us-west1'", r, "us-east1")
	bad("route", `{"region":"us-west1","target":{}}`, "does not match", r, "US-WEST1")
	bad("route", `{"region":"Hello","target":{}}`, "the Mcp-Param-Region header is not a valid value", r, "=?base64?SGVsbG8?=")
	bad("route", `{"region":"Hello","target":{}}`, "not a valid value", r, "=?base64?SGVs!!!bG8=?=")
	bad("route", `{"region":"Hello","target":{}}`, "not a valid value", r, "=?base64?SGVsbG9=?=") // non-zero padding bits
	bad("route", `{"region":"Hello","target":{}}`, "not a valid value", r, "=?base64?/w==?=")     // not UTF-8
	bad("route", `{"region":"café","target":{}}`, "not a valid value", r, "café")
	bad("route", `{"region":"a\u0001b","target":{}}`, "not a valid value", r, "a\x01b")
	bad("route", `{"region":"x","target":{}}`, "the Mcp-Param-Region header is given more than once", r, "x", r, "x")
	bad("route", `{"target":{}}`, "the Mcp-Param-Region header has a value but the arguments have none for region", r, "x")
	bad("route", `{"region":"x","target":{"zone":"z1"}}`, "the Mcp-Param-Zone header is required: the arguments have a value for target.zone", r, "x")
	bad("route", `{"region":"x","target":{"zone":"z1"}}`, "does not match", r, "x", "Mcp-Param-Zone", "z2")
	bad("route", `{"region":"x","target":{},"shard":7}`, "does not match", r, "x", "Mcp-Param-Shard", "8")
	bad("route", `{"region":"x","target":{},"fast":true}`, "does not match", r, "x", "Mcp-Param-Fast", "True")
	bad("route", `{"region":"x","target":{},"fast":false}`, "does not match", r, "x", "Mcp-Param-Fast", "0")
	bad("route", `{"region":7,"target":{}}`, "does not match", r, "\"7\"")

	ok("count", `{"n":42}`, `{\"n\":42}`, "Mcp-Param-N", "42")
	ok("count", `{"n":42}`, `{\"n\":42}`, "Mcp-Param-N", "42.0")
	ok("count", `{"n":-7}`, `{\"n\":-7}`, "Mcp-Param-N", "-7")
	ok("count", `{"n":9007199254740991}`, `9007199254740991`, "Mcp-Param-N", "9007199254740991")
	ok("count", `{}`, `{}`)
	bad("count", `{"n":42}`, "does not match", "Mcp-Param-N", "43")
	bad("count", `{"n":42}`, "does not match", "Mcp-Param-N", "0x2A")
	bad("count", `{"n":42}`, "does not match", "Mcp-Param-N", "forty-two")
	bad("count", `{"n":9007199254740993}`, "does not match", "Mcp-Param-N", "9007199254740993") // past the safe integers
	bad("count", `{"n":"42"}`, "does not match", "Mcp-Param-N", "4")

	// A tool without marks ignores Mcp-Param headers; so does an unknown
	// tool, answered as tools/call answers it.
	ok("echo", `{"text":"hi"}`, `"text":"hi"`, r, "anything")
	res := paramCall(h, "nope", `{}`, r, "x")
	require.Equal(t, 200, res.StatusCode(), string(res.Body()))
	require.NotContains(t, string(res.Body()), "-32020")
	// A Mcp-Name mismatch is still found first.
	res = paramCall(h, "route", `{"region":"x","target":{}}`)
	require.Equal(t, 400, res.StatusCode())
	require.Contains(t, string(res.Body()), "Mcp-Param-Region")
}

// TestParamHeaderOldRevisions: the initialize-based revisions have no
// custom headers: a session's tools/call of a marked tool needs none.
func TestParamHeaderOldRevisions(t *testing.T) {
	h := paramServer(t)
	sid := string(direct(t, h, "", initBody).Header.Peek("Mcp-Session-Id"))
	require.NotEmpty(t, sid)
	res := direct(t, h, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route","arguments":{"region":"r1","target":{}}}}`)
	require.Equal(t, 200, res.StatusCode(), string(res.Body()))
	require.Contains(t, string(res.Body()), "region=r1")
	require.False(t, strings.Contains(string(res.Body()), "resultType"))
}

// TestMirroredHeaders: the standard headers of a 2026-07-28 request are
// given once each (an intermediary could route on one value and the
// server check another), and Mcp-Name's Base64 is as strict as
// Mcp-Param's.
func TestMirroredHeaders(t *testing.T) {
	h := paramServer(t)
	const echo = `{"text":"hi"}`
	f := func(name, nameHeader string, status int, want string, hd ...string) {
		t.Helper()
		res := paramPost(h, nameHeader, "echo", echo, hd...)
		require.Equal(t, status, res.StatusCode(), "%s: %s", name, res.Body())
		require.Contains(t, string(res.Body()), want, name)
	}
	f("plain", "echo", 200, `"text":"hi"`)
	f("Base64", "=?base64?ZWNobw==?=", 200, `"text":"hi"`)
	f("Mcp-Name twice", "echo", 400, "the Mcp-Name header is given more than once", "Mcp-Name", "add")
	f("Mcp-Name twice, the same", "echo", 400, "the Mcp-Name header is given more than once", "mcp-name", "echo")
	f("Mcp-Method twice", "echo", 400, "the Mcp-Method header is given more than once", "Mcp-Method", "tools/list")
	f("MCP-Protocol-Version twice", "echo", 400, "the Mcp-Protocol-Version header is given more than once", "MCP-Protocol-Version", "2025-11-25")
	f("Base64 with non-zero padding bits", "=?base64?ZWNobx==?=", 400, "Mcp-Name header is not a valid value")
	f("Base64 of invalid UTF-8", "=?base64?/w==?=", 400, "Mcp-Name header is not a valid value")
	f("Base64 unpadded", "=?base64?ZWNobw?=", 400, "Mcp-Name header is not a valid value")
	f("non-ASCII literal", "échø", 400, "Mcp-Name header is not a valid value")
	for _, res := range []*fasthttp.Response{paramCall(h, "echo", echo, "Mcp-Name", "add"), paramPost(h, "=?base64?/w==?=", "echo", echo)} {
		require.Equal(t, -32020, errorCode(t, string(res.Body())))
	}
}

// wireCall serves a 2026-07-28 tools/call parsed from the wire, with the
// header lines hd.
func wireCall(t *testing.T, h *mcphttp.Handler, tool, args string, hd ...string) *fasthttp.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + modernMeta + `}}`
	raw := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" +
		"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n" + strings.Join(hd, "\r\n") +
		"\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
	var req fasthttp.Request
	require.NoError(t, req.Read(bufio.NewReader(strings.NewReader(raw))))
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	h.ServeFastHTTP(&ctx)
	var res fasthttp.Response
	ctx.Response.CopyTo(&res)
	return &res
}

// TestParamHeaderWire: header values as parsed from the wire: optional
// whitespace around them is not part of them, an empty header is present
// (it mirrors an empty string), and the Base64 sentinel is case-sensitive
// (=?BASE64?...?= is a literal).
func TestParamHeaderWire(t *testing.T) {
	h := paramServer(t)
	f := func(args string, status int, hd ...string) {
		t.Helper()
		res := wireCall(t, h, "route", args, hd...)
		require.Equal(t, status, res.StatusCode(), "%s %q: %s", args, hd, res.Body())
	}
	f(`{"region":"us-west1","target":{}}`, 200, "Mcp-Name:  route \t", "Mcp-Param-Region: \t us-west1  ")
	f(`{"region":"","target":{}}`, 200, "Mcp-Name: route", "Mcp-Param-Region:")
	f(`{"region":"x","target":{}}`, 400, "Mcp-Name: route", "Mcp-Param-Region:")
	f(`{"region":"=?BASE64?SGVsbG8=?=","target":{}}`, 200, "Mcp-Name: route", "Mcp-Param-Region: =?BASE64?SGVsbG8=?=")
	f(`{"region":"Hello","target":{}}`, 400, "Mcp-Name: route", "Mcp-Param-Region: =?BASE64?SGVsbG8=?=")
	f(`{"region":"Hello","target":{}}`, 400, "Mcp-Name: =?BASE64?cm91dGU=?=", "Mcp-Param-Region: Hello")
	f(`{"region":"Hello","target":{}}`, 200, "Mcp-Name: =?base64?cm91dGU=?=", "Mcp-Param-Region: Hello")
	f(`{"region":"a,b","target":{}}`, 200, "Mcp-Name: route", "Mcp-Param-Region: a,b")
	f(`{"region":"a","target":{}}`, 400, "Mcp-Name: route", "Mcp-Param-Region: a", "mcp-param-region: a")
}
