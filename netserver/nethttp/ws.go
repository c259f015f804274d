package nethttp

// NOTE: the WebSocket endpoint of HTTPServer. A GET /ws with the upgrade
// headers is upgraded (fasthttp/websocket's FastHTTPUpgrader) and the
// hijacked connection is served by a wsConn (ws_conn.go) on the connection
// core, like a TCP connection: its reader is the hijack handler's goroutine.
// After the handshake the websocket package is not used.

import (
	"bytes"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// What the endpoint promises (messages, limits, close codes, keep-alive,
// Shutdown) is in doc.go, under WebSocket.

const (
	wsPath      = "/ws"
	wsPingEvery = 30 * time.Second
	wsCloseWait = time.Second // for the peer's close frame after ours
	// wsCloseAnswer bounds how long the answers to a client that closed
	// are waited for before its close is echoed.
	wsCloseAnswer = 2 * time.Second
	// wsLibBuf is the websocket package's read and write buffers, which
	// it allocates but which are never used: the frames are read and
	// written here.
	wsLibBuf = 128
)

var wsUpgrader = websocket.FastHTTPUpgrader{
	ReadBufferSize:  wsLibBuf,
	WriteBufferSize: wsLibBuf,
	// Handler checks the Origin first, with netserver.Options.Guard.
	CheckOrigin: func(*fasthttp.RequestCtx) bool { return true },
}

// isWS reports whether ctx asks to upgrade GET /ws.
func isWS(ctx *fasthttp.RequestCtx) bool {
	return ctx.IsGet() && bytes.Equal(ctx.Path(), []byte(wsPath)) && websocket.FastHTTPIsWebSocketUpgrade(ctx)
}

// serveWS upgrades the request; the connection is served on fasthttp's
// hijack goroutine, which closes it when serve returns.
func (s *HTTPServer) serveWS(ctx *fasthttp.RequestCtx) {
	_, id, ok := s.admitFast(ctx, 0) // Auth (http_guard.go)
	if !ok {
		return
	}
	err := wsUpgrader.Upgrade(ctx, func(wc *websocket.Conn) {
		c := newWSConn(s, wc.NetConn(), id)
		if s.lim.host.Track(c.core) != nil { // shut down
			c.queueClose(ws.CloseGoingAway, "")
			c.core.Release()
			return
		}
		s.lim.observe(netserver.WS, netserver.ConnOpened)
		c.serve()
		s.lim.observe(netserver.WS, netserver.ConnClosed)
		s.lim.host.Untrack(c.core)
	})
	if err != nil {
		s.lim.log.Debug("netserver: websocket upgrade failed", "remote", ctx.RemoteAddr(), "err", err)
	}
}

// openWS returns the number of open WebSocket connections.
func (s *HTTPServer) openWS() int { return s.lim.host.OpenConns() }
