package mcp_test

import (
	"bufio"
	"context"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
)

// listenServer has a tool, a prompt and a resource; listChanged declares
// that it tells listeners of list changes.
func listenServer(t *testing.T, listChanged bool) *mcp.Server {
	t.Helper()
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.AddTool(mcp.NewTool("nop", "", noInput(func(context.Context) (*mcp.Result, error) { return mcp.TextResult("nop"), nil }))))
	require.NoError(t, s.AddPrompt(&mcp.Prompt{Name: "p", Get: func(context.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }}))
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://a", Name: "a", Read: func(context.Context, string) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: "test://a", Text: "a"}}, nil
	}}))
	if listChanged {
		require.NoError(t, s.EnableListChanged())
	}
	return s
}

func listenBody(id, filter string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":` + filter + `,` + modernMeta + `}}`
}

// waitFor polls cond every 10 ms for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("timed out waiting for " + what)
}

// TestListenHTTP: subscriptions/listen answers with an event stream whose
// first event is the acknowledgment of what the server honours; then each
// notification the filter asked for, tagged with the subscription id (the
// request's id), and nothing else; the stream ends with its connection.
// server/discover declares listChanged (initialize does not).
func TestListenHTTP(t *testing.T) {
	s := listenServer(t, true)
	e := serveHTTP(t, s, &mcphttp.Options{KeepAlive: 20 * time.Millisecond})
	_, body := e.do("POST", modernHdr("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
	require.Contains(t, body, `"capabilities":{"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`)
	_, body = e.do("POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Contains(t, body, `"capabilities":{"prompts":{},"resources":{"subscribe":true},"tools":{}}`)

	res := e.open("POST", modernHdr("subscriptions/listen", ""), listenBody(`"L1"`, `{"toolsListChanged":true,"resourceSubscriptions":["test://a","test://c"]}`))
	require.Equal(t, 200, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	br := bufio.NewReader(res.Body)
	ack := events(t, br, 1)
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},`+
		`"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://a","test://c"]}}}`, ack[0][1])
	require.Empty(t, ack[0][0], "no event ids on 2026-07-28")
	require.Equal(t, 1, s.Listeners())

	require.Equal(t, 0, s.PromptsChanged(), "not asked for")
	require.Equal(t, 0, s.ResourcesChanged(), "not asked for")
	require.Equal(t, 0, s.ResourceUpdated("test://b"))
	require.Equal(t, 1, s.ToolsChanged())
	require.Equal(t, 1, s.ResourceUpdated("test://a"))
	ev := events(t, br, 2)
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}}`, ev[0][1])
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"},"uri":"test://a"}}`, ev[1][1])

	// A second stream, with its own id and filter; both get what they asked for.
	res2 := e.open("POST", modernHdr("subscriptions/listen", ""), listenBody(`7`, `{"promptsListChanged":true,"toolsListChanged":true,"resourcesListChanged":true}`))
	br2 := bufio.NewReader(res2.Body)
	require.Contains(t, events(t, br2, 1)[0][1], `"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}`)
	require.Equal(t, 2, s.ToolsChanged())
	require.Equal(t, 1, s.PromptsChanged())
	require.Contains(t, events(t, br, 1)[0][1], `"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L1"}}`)
	ev = events(t, br2, 2)
	require.Contains(t, ev[0][1], `"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)
	require.Contains(t, ev[1][1], `"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)

	res.Body.Close() // the client cancels: the server finds the connection gone at its next write
	waitFor(t, "the first listener to end", func() bool { return s.Listeners() == 1 })
	require.Equal(t, 1, s.ToolsChanged())
	res2.Body.Close()
	waitFor(t, "the second listener to end", func() bool { return s.Listeners() == 0 })
	require.Equal(t, 0, s.ToolsChanged())
}

// TestListenRefused: subscriptions/listen is 2026-07-28's: a session's is
// -32601; it needs a filter; without EnableListChanged its
// acknowledgment leaves the list changes out and none is sent.
func TestListenRefused(t *testing.T) {
	s := listenServer(t, false)
	e := serveHTTP(t, s, nil)
	_, body := e.do("POST", modernHdr("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
	require.Contains(t, body, `"capabilities":{"prompts":{},"resources":{"subscribe":true},"tools":{}}`)
	sid := e.initialize(mcp.Latest)
	_, body = e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`)
	require.Equal(t, -32601, errorCode(t, body), body)
	res, body := e.do("POST", modernHdr("subscriptions/listen", ""), `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{`+modernMeta+`}}`)
	require.Equal(t, -32602, errorCode(t, body), body)
	require.Equal(t, 200, res.StatusCode)

	res = e.open("POST", modernHdr("subscriptions/listen", ""), listenBody(`4`, `{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://a"]}`))
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	require.Contains(t, events(t, br, 1)[0][1], `"notifications":{"resourceSubscriptions":["test://a"]}}`)
	require.Equal(t, 0, s.ToolsChanged())
	require.Equal(t, 0, s.PromptsChanged())
	require.Equal(t, 1, s.ResourceUpdated("test://a"))
	require.Contains(t, events(t, br, 1)[0][1], `"notifications/resources/updated"`)
}

// TestListenShutdown: the endpoint's Shutdown ends the open listen
// streams with their result, tagged with the subscription id (a graceful
// end, which tells the client to listen again elsewhere), and their calls.
func TestListenShutdown(t *testing.T) {
	s := listenServer(t, true)
	e := serveHTTP(t, s, nil)
	res := e.open("POST", modernHdr("subscriptions/listen", ""), listenBody(`1`, `{"toolsListChanged":true}`))
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	require.Len(t, events(t, br, 1), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, e.h.Shutdown(ctx))
	require.Equal(t, [][2]string{{"", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`}},
		events(t, br, -1), "the result, then the stream ends")
	waitFor(t, "the listener to end", func() bool { return s.Listeners() == 0 })
}

// TestListenStdio: over stdio the listen request stays open while its
// notifications go on the connection, tagged with its id, beside other
// requests; notifications/cancelled for it ends it.
func TestListenStdio(t *testing.T) {
	s := listenServer(t, true)
	p := serveStdio(t, s)
	p.send(listenBody(`"s"`, `{"promptsListChanged":true}`))
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"},"notifications":{"promptsListChanged":true}}}`, p.next())
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`)
	require.Contains(t, p.next(), `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`)
	require.Equal(t, 0, s.ToolsChanged())
	require.Equal(t, 1, s.PromptsChanged())
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`, p.next())
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s",` + modernMeta + `}}`)
	waitFor(t, "the listener to end", func() bool { return s.Listeners() == 0 })
	require.Equal(t, 0, s.PromptsChanged())
}

// TestListenStdioTeardown: a server that shuts down under an open listen
// request sends notifications/cancelled for it (2026-07-28: "A server
// MUST send notifications/cancelled referencing a subscriptions/listen
// request ID when it tears down that subscription stream").
func TestListenStdioTeardown(t *testing.T) {
	s := listenServer(t, true)
	p := serveStdio(t, s)
	p.send(listenBody(`9`, `{"toolsListChanged":true}`))
	require.Contains(t, p.next(), `"notifications/subscriptions/acknowledged"`)
	s.Close()
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},"requestId":9,"reason":"the server is shutting down"}}`, p.next())
	waitFor(t, "the listener to end", func() bool { return s.Listeners() == 0 })
}
