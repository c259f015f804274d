package mcp_test

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/stretchr/testify/require"
)

// TestStdio serves MCP over a pipe as jetrpc serve --mcp --stdio does: one
// message per line, initialize's revision per connection, cancellation,
// and 2026-07-28 requests beside them; it returns at EOF.
func TestStdio(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	defer s.Close()
	require.NoError(t, mcpdemo.Register(s))
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
	send := func(msg string) {
		t.Helper()
		_, err := io.WriteString(inW, msg+"\n")
		require.NoError(t, err)
	}
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(5 * time.Second):
			t.Fatal("no answer")
		}
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"t","version":"1"}}}`, next())
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, next())

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"countdown","arguments":{"n":1000,"intervalMs":20},"_meta":{"progressToken":"p"}}}`)
	require.Contains(t, next(), `"progressToken":"p","progress":1,`)
	start := time.Now()
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"test"}}`)
	for {
		l := next()
		if strings.Contains(l, `"id":3`) { // the cancelled call ends at once (its answer is still written)
			require.Contains(t, l, `"isError":true`)
			break
		}
		require.Contains(t, l, "notifications/progress")
	}
	require.Less(t, time.Since(start), 2*time.Second)

	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"m"},` + modernMeta + `}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"m"}]}}`, next())
	send(`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	require.Contains(t, next(), `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28",`)
	send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	require.Contains(t, next(), `{"jsonrpc":"2.0","id":6,"result":{"tools":[{"name":"echo"`)

	inW.Close()
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return at EOF")
	}
}
