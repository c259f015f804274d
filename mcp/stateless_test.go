package mcp_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/stretchr/testify/require"
)

// stdioPeer is a client of s over stdio pipes.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
}

func serveStdio(t *testing.T, s *mcp.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(inR, outW, nil); outW.Close() }()
	p := &stdioPeer{t: t, in: inW, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-served:
			require.NoError(t, err)
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return at EOF")
		}
		s.Close()
	})
	return p
}

func (p *stdioPeer) send(msg string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, msg+"\n")
	require.NoError(p.t, err)
}

func (p *stdioPeer) next() string {
	p.t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(5 * time.Second):
		p.t.Fatal("no answer")
	}
	return ""
}

// modernHdr is the headers of a 2026-07-28 request for method (and name).
func modernHdr(method, name string) hdr {
	return hdr{"Mcp-Protocol-Version": mcp.Modern, "Mcp-Method": method, "Mcp-Name": name}
}

// modernCall is a 2026-07-28 tools/call of tool with caps as the declared
// client capabilities and extra members of _meta.
func modernCall(id, tool, caps, meta string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + meta + `}}}`
}

func noInput(fn func(ctx context.Context) (*mcp.Result, error)) func(context.Context, struct{}) (*mcp.Result, error) {
	return func(ctx context.Context, _ struct{}) (*mcp.Result, error) { return fn(ctx) }
}

// TestRemovedMethods: 2026-07-28 removed initialize, ping, logging/setLevel
// and resources/subscribe and unsubscribe; over stdio a request of that
// revision gets -32601 (HTTP: TestHTTPModern), one of the others an
// answer.
func TestRemovedMethods(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://r", Name: "r", Read: func(context.Context, string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: "test://r", Text: "r"}}, nil
	}}))
	require.NoError(t, s.EnableLogging())
	p := serveStdio(t, s)
	for i, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		id := itoa(i + 1)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"protocolVersion":"2026-07-28","level":"info","uri":"test://r",` + modernMeta + `}}`)
		require.Equal(t, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32601,"message":"Method not found"}}`, p.next(), m)
	}
	p.send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Contains(t, p.next(), `{"jsonrpc":"2.0","id":10,"result":{"protocolVersion":"2025-11-25",`)
	for i, m := range []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		id := itoa(i + 11)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"level":"info","uri":"test://r"}}`)
		require.Equal(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`, p.next(), m)
	}
}

// TestRequireClientCapabilities: a 2026-07-28 request that lacks a
// capability a tool requires gets -32021 naming the missing ones as a
// ClientCapabilities object, with HTTP 400 (blocking and Inline tools,
// resources and prompts alike); declared ones pass; a handler that does
// not return the error answers as usual; the initialize-based revisions
// are not checked.
func TestRequireClientCapabilities(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	needs := func(ctx context.Context) (*mcp.Result, error) {
		if err := mcp.RequireClientCapabilities(ctx, "sampling", "elicitation"); err != nil {
			return nil, err
		}
		return mcp.TextResult("ok"), nil
	}
	inline := mcp.NewTool("inline", "", noInput(needs))
	inline.Inline = true
	for _, tool := range []*mcp.Tool{
		mcp.NewTool("needs", "", noInput(needs)),
		inline,
		mcp.NewTool("ignores", "", noInput(func(ctx context.Context) (*mcp.Result, error) {
			if mcp.RequireClientCapabilities(ctx, "roots") != nil {
				return mcp.TextResult("without roots"), nil // a fallback
			}
			return mcp.TextResult("with roots"), nil
		})),
	} {
		require.NoError(t, s.AddTool(tool))
	}
	require.NoError(t, s.AddPrompt(&mcp.Prompt{Name: "p", Get: func(ctx context.Context, _ map[string]string) (*mcp.PromptResult, error) {
		return nil, mcp.RequireClientCapabilities(ctx, "roots")
	}}))
	e := serveHTTP(t, s, nil)
	f := func(tool, caps string, status int, want string) {
		t.Helper()
		res, body := e.do("POST", modernHdr("tools/call", tool), modernCall(`"c"`, tool, caps, ""))
		require.Equal(t, status, res.StatusCode, body)
		require.Contains(t, body, want)
	}
	missing := func(names, data string) string {
		return `{"jsonrpc":"2.0","id":"c","error":{"code":-32021,"message":"Missing required client capability: ` + names +
			`","data":{"requiredCapabilities":` + data + `}}}`
	}
	both := missing("sampling, elicitation", `{"sampling":{},"elicitation":{}}`)
	f("needs", `{}`, 400, both)
	f("inline", `{}`, 400, both)
	f("needs", `{"sampling":true,"elicitation":null}`, 400, both) // a capability is an object
	f("needs", `{"sampling":{}}`, 400, missing("elicitation", `{"elicitation":{}}`))
	f("needs", `{"elicitation":{"form":{}},"sampling":{"tools":{}}}`, 200, `"text":"ok"`)
	f("inline", `{"elicitation":{},"sampling":{}}`, 200, `"text":"ok"`)
	f("ignores", `{}`, 200, `"text":"without roots"`)
	f("ignores", `{"roots":{}}`, 200, `"text":"with roots"`)
	res, body := e.do("POST", modernHdr("prompts/get", "p"), `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"p",`+modernMeta+`}}`)
	require.Equal(t, 400, res.StatusCode, body)
	require.Contains(t, body, `"requiredCapabilities":{"roots":{}}`)

	sid := e.initialize(mcp.Latest)
	res, body = e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"needs","arguments":{}}}`)
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, body, `"text":"ok"`)
	require.NoError(t, mcp.RequireClientCapabilities(context.Background(), "sampling"))
}

// TestModernLogLevel: a 2026-07-28 request gets log messages only when its
// _meta names a log level, then those at that level or above, on its own
// stream before its result; an unknown level is -32602. The
// initialize-based revisions still take logging/setLevel.
func TestModernLogLevel(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.EnableLogging())
	require.NoError(t, s.AddTool(mcp.NewTool("logs", "", noInput(func(ctx context.Context) (*mcp.Result, error) {
		for _, l := range []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelError} {
			if err := mcp.Log(ctx, l, "t", l.String()); err != nil {
				return nil, err
			}
		}
		return mcp.TextResult("done"), nil
	}))))
	e := serveHTTP(t, s, nil)
	call := func(meta string) (*http.Response, [][2]string) {
		res := e.open("POST", modernHdr("tools/call", "logs"), modernCall("1", "logs", "{}", meta))
		defer res.Body.Close()
		return res, events(t, res.Body, -1)
	}
	res, body := e.do("POST", modernHdr("tools/call", "logs"), modernCall("1", "logs", "{}", ""))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"), "no log message: no stream")
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}`, body)
	res, ev := call(`,"io.modelcontextprotocol/logLevel":"info"`)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	require.Len(t, ev, 3)
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"t","data":"info"}}`, ev[0][1])
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"t","data":"error"}}`, ev[1][1])
	require.Contains(t, ev[2][1], `"text":"done"`)
	_, ev = call(`,"io.modelcontextprotocol/logLevel":"debug"`)
	require.Len(t, ev, 4)
	res, body = e.do("POST", modernHdr("tools/call", "logs"), modernCall("1", "logs", "{}", `,"io.modelcontextprotocol/logLevel":"loud"`))
	require.Equal(t, -32602, errorCode(t, body), body)
	require.Contains(t, body, `is not a log level: \"loud\"`)

	sid := e.initialize(mcp.Latest)
	res, body = e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	require.Equal(t, 200, res.StatusCode, body)
	res = e.open("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"logs","arguments":{}}}`)
	ev = events(t, res.Body, -1)
	res.Body.Close()
	var data []string
	for _, x := range ev {
		data = append(data, x[1])
	}
	require.Len(t, data, 2, "%q", data) // the error message and the result
	require.Contains(t, data[0], `"level":"error"`)
}
