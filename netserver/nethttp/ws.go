package nethttp

// NOTE: the WebSocket endpoint of HTTPServer. A GET /ws with the upgrade
// headers is upgraded (fasthttp/websocket's FastHTTPUpgrader) and the
// hijacked connection is served by a wsConn (ws_conn.go) on the connection
// core, like a TCP connection: its reader is the hijack handler's goroutine.
// After the handshake the websocket package is not used.
//
// permessage-deflate is negotiated here (frame/ws's AcceptDeflate), not
// by the websocket package: its answer goes into the 101 response after
// Upgrade has set it up, since Upgrade refuses a response that names an
// extension already. The server never keeps context between the messages
// it sends (server_no_context_takeover): its responses are framed by the
// goroutines that computed them, in any order (ws_conn.go), and a pooled
// flate writer holds nothing between them. It asks clients for
// client_no_context_takeover too, so that an idle connection holds no
// compression state at all (docs/websocket.md has the figures).

import (
	"bytes"
	"strings"
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

// wsDeflatePref is what the server asks of permessage-deflate's peers:
// no context kept on either side (see the NOTE above).
var wsDeflatePref = ws.Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}

// wsCompressMin is permessage-deflate's threshold for
// netserver.Options.CompressMin: 0 is the default, negative is off (-1).
func wsCompressMin(n int) int {
	switch {
	case n == 0:
		return netserver.DefaultCompressMin
	case n < 0:
		return -1
	}
	return n
}

// wsExtensions returns the request's Sec-WebSocket-Extensions headers,
// joined with commas.
func wsExtensions(ctx *fasthttp.RequestCtx) string {
	all := ctx.Request.Header.PeekAll("Sec-WebSocket-Extensions")
	if len(all) == 1 {
		return string(all[0])
	}
	parts := make([]string, len(all))
	for i, v := range all {
		parts[i] = string(v)
	}
	return strings.Join(parts, ",")
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
	var agreed ws.Deflate
	deflate := false
	if s.lim.wsDeflate >= 0 {
		agreed, deflate = ws.AcceptDeflate(wsExtensions(ctx), wsDeflatePref)
	}
	err := wsUpgrader.Upgrade(ctx, func(wc *websocket.Conn) {
		c := newWSConn(s, wc.NetConn(), id)
		if deflate {
			c.setDeflate(agreed, s.lim.wsDeflate)
		}
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
	if err == nil && deflate { // written with the 101 answer, after this returns
		ctx.Response.Header.SetBytesV("Sec-WebSocket-Extensions", ws.AppendDeflate(nil, agreed, false))
	}
	if err != nil {
		s.lim.log.Debug("netserver: websocket upgrade failed", "remote", ctx.RemoteAddr(), "err", err)
	}
}

// openWS returns the number of open WebSocket connections.
func (s *HTTPServer) openWS() int { return s.lim.host.OpenConns() }
