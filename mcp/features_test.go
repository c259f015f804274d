package mcp_test

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/stretchr/testify/require"
)

// pipe serves s over an in-memory pipe as jetrpc serve --mcp --stdio does
// and returns a function that sends a line and one that reads the next.
func pipe(t *testing.T, s *mcp.Server) (send func(string), next func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(inR, outW, nil); outW.Close() }()
	lines := make(chan string, 100)
	go func() {
		br := bufio.NewScanner(outR)
		for br.Scan() {
			lines <- br.Text()
		}
		close(lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-served:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return at EOF")
		}
	})
	send = func(msg string) {
		t.Helper()
		_, err := io.WriteString(inW, msg+"\n")
		require.NoError(t, err)
	}
	next = func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
		return ""
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return send, next
}

func newServer(t *testing.T) *mcp.Server {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	t.Cleanup(s.Close)
	return s
}

// TestLogging: Log's notifications arrive before the result, in order, at
// or above the level logging/setLevel set; the capability is declared.
func TestLogging(t *testing.T) {
	s := newServer(t)
	require.NoError(t, s.EnableLogging())
	require.NoError(t, s.AddTool(mcp.NewTool("log", "", func(ctx context.Context, _ struct{}) (*mcp.Result, error) {
		for _, l := range []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelWarning, mcp.LevelEmergency} {
			if err := mcp.Log(ctx, l, "test", map[string]string{"at": l.String()}); err != nil {
				return nil, err
			}
		}
		return mcp.TextResult("logged"), nil
	})))
	send, next := pipe(t, s)
	require.Contains(t, next(), `"capabilities":{"logging":{},"tools":{}}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`
	send(call)
	for _, l := range []string{"debug", "info", "warning", "emergency"} {
		require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"`+l+`","logger":"test","data":{"at":"`+l+`"}}}`, next())
	}
	require.Contains(t, next(), `"id":2,"result":{"content":[{"type":"text","text":"logged"}]}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"warning"}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, next())
	send(call)
	require.Contains(t, next(), `"level":"warning"`)
	require.Contains(t, next(), `"level":"emergency"`)
	require.Contains(t, next(), `"id":2,"result"`)
	send(`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}`)
	require.Contains(t, next(), `"id":4,"error":{"code":-32602`)

	f := func(name string, want mcp.LogLevel, ok bool) {
		t.Helper()
		l, k := mcp.ParseLogLevel(name)
		require.Equal(t, ok, k, name)
		require.Equal(t, want, l, name)
	}
	f("debug", mcp.LevelDebug, true)
	f("notice", mcp.LevelNotice, true)
	f("critical", mcp.LevelCritical, true)
	f("Debug", 0, false)
}

// TestCompletion: completion/complete reaches the Completer with the
// reference, the argument and the context, and the capability is declared.
func TestCompletion(t *testing.T) {
	s := newServer(t)
	var got mcp.CompleteRequest
	require.NoError(t, s.SetCompleter(func(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
		got = *req
		if req.Argument.Value == "none" {
			return nil, nil
		}
		return &mcp.Completion{Values: []string{"paris", "park"}, Total: 2}, nil
	}))
	send, next := pipe(t, s)
	require.Contains(t, next(), `"capabilities":{"completions":{}}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"pa"},"context":{"arguments":{"b":"x"}}}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["paris","park"],"total":2}}}`, next())
	require.Equal(t, mcp.CompleteRequest{Ref: mcp.CompleteRef{Type: "ref/prompt", Name: "p"},
		Argument: mcp.CompleteArgument{Name: "a", Value: "pa"}, Context: map[string]string{"b": "x"}}, got)
	send(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"u"},"argument":{"name":"a","value":"none"}}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"completion":{"values":[]}}}`, next())
	send(`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{}}`)
	require.Contains(t, next(), `"id":3,"error":{"code":-32602`)
}

// TestCompletionAbsent: without a Completer, completion/complete is not a
// method and no capability is declared.
func TestCompletionAbsent(t *testing.T) {
	send, next := pipe(t, newServer(t))
	require.Contains(t, next(), `"capabilities":{}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}}`)
	require.Contains(t, next(), `"id":1,"error":{"code":-32601`)
}

// TestResourceTemplates: resources/templates/list, and resources/read of a
// URI that fits a template, with its variables.
func TestResourceTemplates(t *testing.T) {
	s := newServer(t)
	tpl := &mcp.ResourceTemplate{URITemplate: "test://items/{id}/data", Name: "item", MIMEType: "application/json",
		Read: func(_ context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: uri, Text: "item " + vars["id"]}}, nil
		}}
	require.NoError(t, s.AddResourceTemplate(tpl))
	require.ErrorIs(t, s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tpl.URITemplate, Name: "x", Read: tpl.Read}), mcp.ErrDuplicate)
	send, next := pipe(t, s)
	require.Contains(t, next(), `"capabilities":{"resources":{"subscribe":true}}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"test://items/{id}/data","name":"item","mimeType":"application/json"}]}}`, next())
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://items/42/data"}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"test://items/42/data","text":"item 42"}]}}`, next())
	send(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://items/42/other"}}`)
	require.Contains(t, next(), `"id":3,"error":{"code":-32002`)
	require.ErrorIs(t, s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "a", Name: "a", Read: tpl.Read}), mcp.ErrFrozen)

	f := func(template, uri string, want map[string]string) {
		t.Helper()
		vars, ok := (&mcp.ResourceTemplate{URITemplate: template}).Match(uri)
		require.Equal(t, want != nil, ok, "%s %s", template, uri)
		if want != nil && len(want) > 0 {
			require.Equal(t, want, vars)
		}
	}
	f("test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"})
	f("test://template/{id}/data", "test://template//data", nil)
	f("test://template/{id}/data", "test://template/1/2/data", nil)
	f("file:///{dir}/{name}.txt", "file:///a/b.txt", map[string]string{"dir": "a", "name": "b"})
	f("file:///{dir}/{name}.txt", "file:///a/b.md", nil)
	f("x://{a}", "x://q", map[string]string{"a": "q"})
	f("x://fixed", "x://fixed", map[string]string{})
}

// TestSubscribe: after resources/subscribe, ResourceUpdated notifies the
// session outside any call; after unsubscribe it does not.
func TestSubscribe(t *testing.T) {
	s := newServer(t)
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://w", Name: "w",
		Read: func(context.Context, string) ([]mcp.ResourceContents, error) { return nil, nil }}))
	send, next := pipe(t, s)
	next()
	require.Equal(t, 0, s.ResourceUpdated("test://w"))
	send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://w"}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, next())
	require.Equal(t, 1, s.ResourceUpdated("test://w"))
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://w"}}`, next())
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"test://w"}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, next())
	require.Equal(t, 0, s.ResourceUpdated("test://w"))
	send(`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{}}`)
	require.Contains(t, next(), `"id":3,"error":{"code":-32602`)
}

// TestCachingHints: 2026-07-28's list and read results carry ttlMs and
// cacheScope (SEP-2549); the initialize-based revisions' do not.
func TestCachingHints(t *testing.T) {
	s := newServer(t)
	require.NoError(t, s.AddResource(&mcp.Resource{URI: "test://r", Name: "r",
		Read: func(context.Context, string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "test://r", Text: "x"}}, nil
		}}))
	send, next := pipe(t, s)
	next()
	f := func(method, params, want string) {
		t.Helper()
		send(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + modernMeta + `}}`)
		require.Contains(t, next(), `"result":{"resultType":"complete",`+want)
	}
	f("tools/list", "", `"ttlMs":0,"cacheScope":"public","tools":[]`)
	f("prompts/list", "", `"ttlMs":0,"cacheScope":"public","prompts":[]`)
	f("resources/list", "", `"ttlMs":0,"cacheScope":"public","resources":[{"uri":"test://r"`)
	f("resources/templates/list", "", `"ttlMs":0,"cacheScope":"public","resourceTemplates":[]`)
	f("resources/read", `"uri":"test://r",`, `"ttlMs":0,"cacheScope":"private","contents":[`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, next())
}
