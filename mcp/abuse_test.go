package mcp_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// direct serves one request through the handler without a network.
func direct(t testing.TB, h *mcphttp.Handler, sid, body string) *fasthttp.Response {
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.SetContentType("application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	req.SetBodyString(body)
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, nil, nil)
	h.ServeFastHTTP(&ctx)
	var res fasthttp.Response
	ctx.Response.CopyTo(&res)
	return &res
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// maxSessionBytes is the documented bound of an idle session's memory
// (README, MCP): measured about 800 bytes on linux/amd64.
const maxSessionBytes = 2048

// TestAbuseSessions: 10,000 sessions opened and abandoned stay within
// maxSessionBytes each, and expire, giving the memory back.
func TestAbuseSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 sessions")
	}
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	// The sessions must all be alive when their memory is measured, so the
	// idle expiry is set from how fast this machine opens them (much slower
	// under -race or load): three times the time 10,000 take, at least 2 s.
	idle := calibrateSessions(t, s) * 3
	idle = max(idle, 2*time.Second)
	h := mcphttp.New(s, &mcphttp.Options{SessionIdle: idle, MaxSessions: 20000})
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, h.Shutdown(ctx))
		s.Close()
	}()
	for range 100 { // warm the pools and maps
		require.Equal(t, 200, direct(t, h, "", initBody).StatusCode())
	}
	before := heap()
	const n = 10000
	start := time.Now()
	for range n {
		res := direct(t, h, "", initBody)
		require.Equal(t, 200, res.StatusCode())
	}
	opened := time.Since(start)
	after := heap()
	require.Equal(t, n+100, h.Sessions())
	per := float64(after-before) / n
	t.Logf("%d sessions opened in %v: %.0f bytes each", n, opened, per)
	require.Less(t, per, float64(maxSessionBytes))
	deadline := time.Now().Add(idle + 10*time.Second)
	for h.Sessions() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Zero(t, h.Sessions(), "idle sessions expire")
	left := heap()
	t.Logf("after expiry: %d bytes above the start", int64(left)-int64(before))
	require.Less(t, int64(left)-int64(before), int64(n*maxSessionBytes/10))
}

// calibrateSessions estimates how long opening 10,000 sessions takes here,
// from 200 opened on a handler of their own.
func calibrateSessions(t *testing.T, s *mcp.Server) time.Duration {
	h := mcphttp.New(s, &mcphttp.Options{MaxSessions: 1000})
	defer h.Shutdown(context.Background())
	start := time.Now()
	for range 200 {
		require.Equal(t, 200, direct(t, h, "", initBody).StatusCode())
	}
	return time.Since(start) * 50
}

// TestMaxSessions: at the bound an initialize ends the session unused the
// longest.
func TestMaxSessions(t *testing.T) {
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, mcpdemo.Register(s))
	h := mcphttp.New(s, &mcphttp.Options{MaxSessions: 10})
	defer h.Shutdown(context.Background())
	var ids []string
	for range 15 {
		res := direct(t, h, "", initBody)
		require.Equal(t, 200, res.StatusCode())
		ids = append(ids, string(res.Header.Peek("Mcp-Session-Id")))
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, 10, h.Sessions())
	require.Equal(t, 404, direct(t, h, ids[0], ping).StatusCode()) // the oldest went first
	require.Equal(t, 200, direct(t, h, ids[14], ping).StatusCode())
}
