package mcp_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// askTwice asks a name, then a colour, and keeps a note of its own: the
// handler of every test here, on both wires.
func askTwice(ctx context.Context, _ struct{}) (*mcp.Result, error) {
	if mcp.RequestState(ctx) == nil {
		mcp.SetRequestState(ctx, []byte("note"))
	}
	var name, colour mcp.ElicitResult
	schema := json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}}}`)
	if err := mcp.Ask(ctx, mcp.Elicit("name", "Your name?", schema, &name)); err != nil {
		return nil, err
	}
	var roots mcp.ListRootsResult
	var model mcp.CreateMessageResult
	sampling := mcp.InputRequest{Key: "model", Method: mcp.MethodSample, Result: &model,
		Params: json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],` + "\n" + `"maxTokens":5}`)}
	if err := mcp.Ask(ctx, mcp.Elicit("colour", "Your colour?", schema, &colour), mcp.ListRoots("roots", &roots), sampling); err != nil {
		return mcp.TextResult("ignored: the call asks"), err
	}
	return mcp.TextResult(string(name.Content) + " " + string(colour.Content) + " " + roots.Roots[0].URI + " " +
		model.Content.Text + " " + string(mcp.RequestState(ctx))), nil
}

func inputServer(t testing.TB, ids *mcphttp.SessionIDs) (*mcp.Server, *mcphttp.Handler) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.AddTool(mcp.NewTool("ask", "", askTwice)))
	require.NoError(t, s.AddTool(mcp.NewTool("ask_too", "", askTwice)))
	require.NoError(t, s.AddPrompt(&mcp.Prompt{Name: "ask", Get: func(ctx context.Context, _ map[string]string) (*mcp.PromptResult, error) {
		var r mcp.ElicitResult
		if err := mcp.Ask(ctx, mcp.Elicit("ctx", "Context?", json.RawMessage(`{"type":"object"}`), &r)); err != nil {
			return nil, err
		}
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(string(r.Content))}}}, nil
	}}))
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://ask", Name: "ask", Read: func(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
		var r mcp.ListRootsResult
		if err := mcp.Ask(ctx, mcp.ListRoots("roots", &r)); err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{{URI: uri, Text: r.Roots[0].URI}}, nil
	}}))
	h := mcphttp.New(s, &mcphttp.Options{SessionIDs: ids})
	t.Cleanup(func() { h.Shutdown(context.Background()); s.Close() })
	return s, h
}

const allCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

// mrtr posts a 2026-07-28 request of method for name (a tool or prompt
// name, or a URI) with the params' other members extra, and returns the
// HTTP status and the JSON-RPC response.
func mrtr(t testing.TB, h *mcphttp.Handler, method, name, caps, extra string) (int, map[string]json.RawMessage) {
	t.Helper()
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.SetContentType("application/json")
	req.Header.Set("Mcp-Protocol-Version", mcp.Modern)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	member := `"name"`
	if method == "resources/read" {
		member = `"uri"`
	}
	if extra != "" {
		extra = "," + extra
	}
	req.SetBodyString(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + member + `:"` + name + `"` + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	h.ServeFastHTTP(&ctx)
	var msg map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(ctx.Response.Body(), &msg), string(ctx.Response.Body()))
	return ctx.Response.StatusCode(), msg
}

func show(msg map[string]json.RawMessage) string { b, _ := json.Marshal(msg); return string(b) }

// irr is an InputRequiredResult.
type irr struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

func inputRequired(t testing.TB, msg map[string]json.RawMessage) irr {
	t.Helper()
	require.Contains(t, msg, "result", show(msg))
	var r irr
	require.NoError(t, json.Unmarshal(msg["result"], &r))
	require.Equal(t, "input_required", r.ResultType, string(msg["result"]))
	require.NotEmpty(t, r.RequestState)
	return r
}

func rpcError(t testing.TB, msg map[string]json.RawMessage) (int, string) {
	t.Helper()
	require.Contains(t, msg, "error", show(msg))
	var e struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(msg["error"], &e))
	return e.Code, string(e.Data)
}

const (
	nameAnswer   = `"name":{"action":"accept","content":{"v":"Ann"}}`
	colourAnswer = `"colour":{"action":"accept","content":{"v":"red"}}`
	rootsAnswer  = `"roots":{"roots":[{"uri":"file:///r","name":"r"}]}`
	modelAnswer  = `"model":{"role":"assistant","model":"m","content":{"type":"text","text":"hello"}}`
)

// TestInputRequiredRounds: on 2026-07-28 a handler's questions come back as
// an InputRequiredResult by key, round after round, each with a new signed
// state that carries the answers so far and the handler's own state, until
// the handler has every answer; what it returns meanwhile is not sent.
func TestInputRequiredRounds(t *testing.T) {
	_, h := inputServer(t, nil)
	status, msg := mrtr(t, h, "tools/call", "ask", allCaps, `"arguments":{}`)
	require.Equal(t, 200, status)
	r1 := inputRequired(t, msg)
	require.Equal(t, map[string]json.RawMessage{"name": json.RawMessage(
		`{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"v":{"type":"string"}}}}}`)},
		r1.InputRequests)

	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, `"arguments":{},"inputResponses":{`+nameAnswer+`},"requestState":"`+r1.RequestState+`"`)
	r2 := inputRequired(t, msg)
	require.NotEqual(t, r1.RequestState, r2.RequestState)
	require.Equal(t, []string{"colour", "model", "roots"}, keys(r2.InputRequests))
	require.JSONEq(t, `{"method":"roots/list","params":{}}`, string(r2.InputRequests["roots"]))
	require.JSONEq(t, `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`,
		string(r2.InputRequests["model"]))
	require.NotContains(t, string(msg["result"]), `\n`, "one line")

	// Only some of the answers: the others are asked again, the name comes
	// from the state.
	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, `"arguments":{},"inputResponses":{`+colourAnswer+`,"other":1},"requestState":"`+r2.RequestState+`"`)
	r3 := inputRequired(t, msg)
	require.Equal(t, []string{"model", "roots"}, keys(r3.InputRequests))

	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, `"arguments":{},"inputResponses":{`+rootsAnswer+`,`+modelAnswer+`},"requestState":"`+r3.RequestState+`"`)
	require.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"{\"v\":\"Ann\"} {\"v\":\"red\"} file:///r hello note"}]}`, string(msg["result"]))

	// Every answer at once, no state: complete (a client may answer
	// without being asked).
	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, `"inputResponses":{`+nameAnswer+`,`+colourAnswer+`,`+rootsAnswer+`,`+modelAnswer+`}`)
	require.Contains(t, string(msg["result"]), `"resultType":"complete"`)
	require.Contains(t, string(msg["result"]), `file:///r hello note`)
}

func keys(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }

// TestInputRequiredOtherRequests: prompts/get and resources/read ask the
// same way; list methods never do.
func TestInputRequiredOtherRequests(t *testing.T) {
	_, h := inputServer(t, nil)
	_, msg := mrtr(t, h, "prompts/get", "ask", allCaps, "")
	r := inputRequired(t, msg)
	require.Equal(t, []string{"ctx"}, keys(r.InputRequests))
	_, msg = mrtr(t, h, "prompts/get", "ask", allCaps, `"inputResponses":{"ctx":{"action":"accept","content":{"c":1}}},"requestState":"`+r.RequestState+`"`)
	require.JSONEq(t, `{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"{\"c\":1}"}}]}`, string(msg["result"]))

	_, msg = mrtr(t, h, "resources/read", "test://ask", allCaps, "")
	r = inputRequired(t, msg)
	require.JSONEq(t, `{"method":"roots/list","params":{}}`, string(r.InputRequests["roots"]))
	_, msg = mrtr(t, h, "resources/read", "test://ask", allCaps, `"inputResponses":{`+rootsAnswer+`},"requestState":"`+r.RequestState+`"`)
	require.Contains(t, string(msg["result"]), `"contents":[{"uri":"test://ask","text":"file:///r"}]`)

	_, msg = mrtr(t, h, "tools/list", "", allCaps, `"inputResponses":{}`)
	require.NotContains(t, string(msg["result"]), "input_required")
}

// forge signs body as a requestState under key, the way the package's
// NOTE describes the format.
func forge(key []byte, body string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("\x00mcp/requestState\x00" + body))
	return base64.RawURLEncoding.EncodeToString([]byte(body)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// TestInputRequiredStateRefused: a requestState changed by the client,
// signed by another key, issued for another tool, other arguments or
// another method, or expired, is Invalid params, whatever the handler
// does with the error; replicas that share the key take each other's.
func TestInputRequiredStateRefused(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	ids, err := mcphttp.NewSessionIDs("a", key)
	require.NoError(t, err)
	_, h := inputServer(t, ids)
	_, msg := mrtr(t, h, "tools/call", "ask", allCaps, `"arguments":{"x":[1, 2]}`)
	state := inputRequired(t, msg).RequestState
	answer := `"inputResponses":{` + nameAnswer + `}`

	refused := func(name, extra, why string) {
		t.Helper()
		status, msg := mrtr(t, h, "tools/call", name, allCaps, answer+`,`+extra)
		code, data := rpcError(t, msg)
		require.Equal(t, 200, status)
		require.Equal(t, -32602, code)
		require.Contains(t, data, why)
	}
	refused("ask", `"arguments":{"x":[1,2]},"requestState":"`+state+`-TAMPERED"`, "not issued by this server")
	refused("ask", `"arguments":{"x":[1,2]},"requestState":"x`+state+`"`, "not issued by this server")
	refused("ask", `"arguments":{"x":[1,2]},"requestState":"`+state[:len(state)-2]+`"`, "not issued by this server")
	refused("ask", `"arguments":{"x":[1,2]},"requestState":7`, "is a string")
	refused("ask_too", `"arguments":{"x":[1,2]},"requestState":"`+state+`"`, "belongs to another request")
	refused("ask", `"arguments":{"x":[1,3]},"requestState":"`+state+`"`, "belongs to another request")
	refused("ask", `"requestState":"`+state+`"`, "belongs to another request")
	status, msg := mrtr(t, h, "prompts/get", "ask", allCaps, `"requestState":"`+state+`"`)
	code, _ := rpcError(t, msg)
	require.Equal(t, -32602, code, status)

	// Whitespace in the arguments is not a different request.
	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, answer+`,"arguments":{ "x" : [1,2] },"requestState":"`+state+`"`)
	require.Equal(t, []string{"colour", "model", "roots"}, keys(inputRequired(t, msg).InputRequests))

	raw, err := base64.RawURLEncoding.DecodeString(state[:strings.IndexByte(state, '.')])
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(raw, &body))
	expired := func(exp int64) string {
		body["exp"] = exp
		b, _ := json.Marshal(body)
		return forge(key, string(b))
	}
	_, msg = mrtr(t, h, "tools/call", "ask", allCaps, answer+`,"arguments":{"x":[1,2]},"requestState":"`+expired(time.Now().Add(time.Minute).Unix())+`"`)
	inputRequired(t, msg) // a state this test signed with the key is taken
	refused("ask", `"arguments":{"x":[1,2]},"requestState":"`+expired(time.Now().Add(-time.Second).Unix())+`"`, "has expired")

	// Another replica with the key takes the state; a server with another
	// key does not.
	other, err := mcphttp.NewSessionIDs("b", key)
	require.NoError(t, err)
	_, replica := inputServer(t, other)
	_, msg = mrtr(t, replica, "tools/call", "ask", allCaps, answer+`,"arguments":{"x":[1,2]},"requestState":"`+state+`"`)
	require.Equal(t, []string{"colour", "model", "roots"}, keys(inputRequired(t, msg).InputRequests))
	_, stranger := inputServer(t, nil)
	_, msg = mrtr(t, stranger, "tools/call", "ask", allCaps, answer+`,"arguments":{"x":[1,2]},"requestState":"`+state+`"`)
	code, data := rpcError(t, msg)
	require.Equal(t, -32602, code)
	require.Contains(t, data, "not issued by this server")
}

// TestInputRequiredAnswersChecked: inputResponses that are not an object,
// an answer that is not one or does not fit the result, are Invalid
// params; an answer to a key not asked is ignored.
func TestInputRequiredAnswersChecked(t *testing.T) {
	_, h := inputServer(t, nil)
	bad := func(extra, why string) {
		t.Helper()
		_, msg := mrtr(t, h, "tools/call", "ask", allCaps, extra)
		code, data := rpcError(t, msg)
		require.Equal(t, -32602, code)
		require.Contains(t, data, why)
	}
	bad(`"inputResponses":null`, "inputResponses is an object")
	bad(`"inputResponses":[]`, "inputResponses is an object")
	bad(`"inputResponses":{"name":12345}`, `inputResponses[\"name\"] is not an object`)
	bad(`"inputResponses":{"name":{"action":7}}`, `inputResponses[\"name\"] does not fit the elicitation/create result`)
	_, msg := mrtr(t, h, "tools/call", "ask", allCaps, `"inputResponses":{"wrong":{"action":"accept"},"name":{"action":"decline"}}`)
	require.Equal(t, []string{"colour", "model", "roots"}, keys(inputRequired(t, msg).InputRequests))
}

// TestInputRequiredCapabilities: a request for a capability the request
// did not declare is MissingRequiredClientCapability (HTTP 400), which
// ClientSupports foretells; Ask refuses requests it cannot make.
func TestInputRequiredCapabilities(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	var supports []bool
	var askErr error
	require.NoError(t, s.AddTool(mcp.NewTool("probe", "", func(ctx context.Context, in struct{ Method, Key string }) (*mcp.Result, error) {
		supports = []bool{mcp.ClientSupports(ctx, mcp.MethodElicit), mcp.ClientSupports(ctx, mcp.MethodSample),
			mcp.ClientSupports(ctx, mcp.MethodListRoots), mcp.ClientSupports(ctx, "tools/list")}
		askErr = mcp.Ask(ctx, mcp.InputRequest{Key: in.Key, Method: in.Method})
		return nil, askErr
	})))
	h := mcphttp.New(s, nil)
	t.Cleanup(func() { h.Shutdown(context.Background()); s.Close() })

	status, msg := mrtr(t, h, "tools/call", "probe", `{"sampling":{}}`, `"arguments":{"Method":"elicitation/create","Key":"k"}`)
	code, data := rpcError(t, msg)
	require.Equal(t, 400, status)
	require.Equal(t, -32021, code)
	require.JSONEq(t, `{"requiredCapabilities":{"elicitation":{}}}`, data)
	require.Equal(t, []bool{false, true, false, false}, supports)

	_, msg = mrtr(t, h, "tools/call", "probe", `{"sampling":{}}`, `"arguments":{"Method":"sampling/createMessage","Key":"k"}`)
	require.Equal(t, []string{"k"}, keys(inputRequired(t, msg).InputRequests))
	require.ErrorIs(t, askErr, mcp.ErrInputRequired)

	mrtr(t, h, "tools/call", "probe", allCaps, `"arguments":{"Method":"tools/list","Key":"k"}`)
	require.ErrorIs(t, askErr, mcp.ErrInputMethod)
	mrtr(t, h, "tools/call", "probe", allCaps, `"arguments":{"Method":"roots/list"}`)
	require.ErrorIs(t, askErr, mcp.ErrInputKey)
	require.ErrorIs(t, mcp.Ask(context.Background(), mcp.ListRoots("r", nil)), mcp.ErrNoStream)
	require.False(t, mcp.ClientSupports(context.Background(), mcp.MethodListRoots))
}

// TestInputRequiredStdio: over stdio the same handler asks its questions as
// requests to the client on an initialize-based session (its answers
// decoded, its own state kept within the call), and on 2026-07-28 as
// InputRequiredResults signed with the Server's own key.
func TestInputRequiredStdio(t *testing.T) {
	s, _ := inputServer(t, nil)
	send, next := pipe(t, s)
	require.Contains(t, next(), `"id":0,"result"`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	answers := map[string]string{
		"elicitation/create:Your name?":   `{"action":"accept","content":{"v":"Ann"}}`,
		"elicitation/create:Your colour?": `{"action":"accept","content":{"v":"red"}}`,
		"roots/list:":                     `{"roots":[{"uri":"file:///r"}]}`,
		"sampling/createMessage:":         `{"role":"assistant","model":"m","content":{"type":"text","text":"hello"}}`,
	}
	for range 4 {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Message string `json:"message"`
			} `json:"params"`
		}
		line := next()
		require.NoError(t, json.Unmarshal([]byte(line), &req), line)
		a, ok := answers[req.Method+":"+req.Params.Message]
		require.True(t, ok, line)
		send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + a + `}`)
	}
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"v\":\"Ann\"} {\"v\":\"red\"} file:///r hello note"}]}}`, next())

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + allCaps + `}`
	send(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"ask",` + meta + `}}`)
	var res struct {
		Result irr `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(next()), &res))
	require.Equal(t, "input_required", res.Result.ResultType)
	send(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"ask","inputResponses":{"ctx":{"action":"accept","content":{}}},"requestState":"` +
		res.Result.RequestState + `",` + meta + `}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"{}"}}]}}`, next())
	send(`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"ask","requestState":"` + res.Result.RequestState + `-x",` + meta + `}}`)
	require.Contains(t, next(), `"id":5,"error":{"code":-32602`)
}

// TestInputRequiredLegacyHTTP: on a 2025-11-25 session over HTTP the
// handler's questions are requests on the call's event stream, answered by
// POST, and its result ends the stream.
func TestInputRequiredLegacyHTTP(t *testing.T) {
	_, h := inputServer(t, nil)
	e := serveHandler(t, h, nil)
	sid := e.initialize(mcp.Version20251125)
	res := e.open("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)
	defer res.Body.Close()
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	answers := []string{`{"action":"accept","content":{"v":"Ann"}}`, `{"action":"accept","content":{"v":"red"}}`,
		`{"roots":[{"uri":"file:///r"}]}`, `{"role":"assistant","model":"m","content":{"type":"text","text":"hello"}}`}
	methods := []string{"elicitation/create", "elicitation/create", "roots/list", "sampling/createMessage"}
	br := bufio.NewReader(res.Body)
	for i, a := range answers {
		ev := events(t, br, 1)
		require.Len(t, ev, 1)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		require.NoError(t, json.Unmarshal([]byte(ev[0][1]), &req), ev[0][1])
		require.Equal(t, methods[i], req.Method)
		r, body := e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+a+`}`)
		require.Equal(t, 202, r.StatusCode, body)
	}
	ev := events(t, br, 1)
	require.Len(t, ev, 1)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"v\":\"Ann\"} {\"v\":\"red\"} file:///r hello note"}]}}`, ev[0][1])
}
