package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
	"github.com/stretchr/testify/require"
)

// mcpReplica is a jetrpc serve --mcp process sharing the NATS store.
func mcpReplica(t *testing.T, natsURL, keyFile, instance string) (*process, string) {
	t.Helper()
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp",
		"--mcp-store", natsURL, "--mcp-key", keyFile, "--mcp-instance", instance)
	return p, "http://" + p.stderr.listening(t, "http")["http"] + "/mcp"
}

type sseEvent struct{ id, data string }

// readEvents reads SSE events with data until n (n < 0: until the stream
// ends).
func readEvents(br *bufio.Reader, n int) []sseEvent {
	var out []sseEvent
	var ev sseEvent
	for n < 0 || len(out) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			return out
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[6:]
		case line == "":
			if ev.data != "" {
				out = append(out, ev)
			}
			ev = sseEvent{}
		}
	}
	return out
}

// TestMCPReplicasKill: two jetrpc serve --mcp processes share a NATS
// JetStream store (embedded here) and a session key. A client starts a
// countdown on replica A and loses A's stream after three progress
// events; A is killed (SIGKILL); the client resumes through replica B,
// which adopts the session from the store and sends the remaining
// progress events and the result: none lost, none twice.
func TestMCPReplicasKill(t *testing.T) {
	natsURL := natstest.Start(t)
	keyFile := filepath.Join(t.TempDir(), "mcp.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"), 0o600))
	a, urlA := mcpReplica(t, natsURL, keyFile, "a")
	_, urlB := mcpReplica(t, natsURL, keyFile, "b")
	client := &http.Client{Timeout: 15 * time.Second}
	send := func(url, method, sid, last, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		}
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		return res
	}
	res := send(urlA, "POST", "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	sid := res.Header.Get("Mcp-Session-Id")
	require.True(t, strings.HasPrefix(sid, "a."), sid) // what HAProxy routes on
	res = send(urlA, "POST", sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	res.Body.Close()
	require.Equal(t, 202, res.StatusCode)

	const n = 8
	res = send(urlA, "POST", sid, "", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"countdown","arguments":{"n":`+
		strconv.Itoa(n)+`,"intervalMs":40},"_meta":{"progressToken":"p"}}}`)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	first := readEvents(bufio.NewReader(res.Body), 3)
	res.Body.Close() // the client loses A's stream
	require.Len(t, first, 3)
	for i, ev := range first {
		require.Contains(t, ev.data, `"progress":`+strconv.Itoa(i+1)+`,`)
	}
	stream, _, _ := strings.Cut(first[2].id, "-")

	// A finishes the call into the store (the client is not reading), and
	// then dies without a word.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store, err := natsstore.Connect(ctx, natsURL, nil)
	require.NoError(t, err)
	defer store.Close()
	id, err := strconv.ParseUint(stream, 16, 64)
	require.NoError(t, err)
	for final := false; !final; {
		_, err := store.Replay(ctx, streamstore.Key{Session: sid, Stream: id}, 0, func(ev streamstore.Event) error {
			final = final || ev.Final
			return nil
		})
		require.NoError(t, err)
		require.NoError(t, ctx.Err(), "the countdown's result never reached the store")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, a.cmd.Process.Kill())
	<-a.done
	a.done <- nil // for the cleanup

	// The client resumes through B.
	res = send(urlB, "GET", sid, first[2].id, "")
	require.Equal(t, 200, res.StatusCode)
	rest := readEvents(bufio.NewReader(res.Body), -1)
	res.Body.Close()
	require.Len(t, rest, n-3+1, "%q", rest) // progress 4..n and the result
	for i, ev := range rest {
		require.Equal(t, stream+"-"+strconv.Itoa(i+4), ev.id)
		if i < n-3 {
			require.Contains(t, ev.data, `"progress":`+strconv.Itoa(i+4)+`,`)
		}
	}
	require.Contains(t, rest[n-3].data, `{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"done"}]}}`)
	res = send(urlB, "GET", sid, rest[n-3].id, "")
	res.Body.Close()
	require.Equal(t, 204, res.StatusCode) // nothing more
	// The session goes on, on B.
	res = send(urlB, "POST", sid, "", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(body))
	require.Contains(t, string(body), "still here")
}
