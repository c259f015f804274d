package load

// NOTE: the WebSocket transport. fasthttp/websocket's Dialer does the opening
// handshake; the frames are then written and read here, on the raw
// connection, by the same loop as TCP's: a burst of calls is appended as
// masked text frames to one buffer and written at once, and the answers are
// cut out of one read buffer without copying (ws.Reader). The websocket
// package's Conn allocates a reader and a writer per message and writes each
// message with a system call of its own; this way a call allocates nothing,
// as over TCP.
//
// So that no byte the server sends after its 101 answer is left behind in
// the Dialer's buffer, the connection under the Dialer is a
// ws.HandshakeConn: it hands out nothing past the end of the answer's
// header block and keeps what it read beyond it for the frame reader. Under
// wss:// (Config.TLS) the connection under the HandshakeConn is the TLS one
// this package dials, so the frames go through it the same way.

import (
	"context"
	"crypto/tls"
	"errors"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame/ws"
)

const (
	wsPath    = "/ws" // where jetrpc serves WebSocket
	wsByeWait = time.Second
)

var (
	errWSClosed = errors.New("load: websocket: the server closed the connection")
	errWSScheme = errors.New("load: websocket: want a ws:// URL, or wss:// with Config.TLS")
)

// wsURL is the URL to dial for addr: a ws:// URL (wss:// with TLS) as
// given, else ws://ADDR/ws (wss://), the path jetrpc serves WebSocket on.
func wsURL(addr string, tls bool) (string, error) {
	scheme := map[bool]string{false: "ws", true: "wss"}[tls]
	switch {
	case strings.HasPrefix(addr, scheme+"://"):
		return addr, nil
	case strings.Contains(addr, "://"):
		return "", errWSScheme
	}
	return scheme + "://" + addr + wsPath, nil
}

// dialWS opens the connections and returns a worker for each.
func (r *run) dialWS(ctx context.Context) ([]func(context.Context, *window) error, error) {
	url, err := wsURL(r.cfg.Addr, r.cfg.TLS != nil)
	if err != nil {
		return nil, err
	}
	conns := make([]*wsConn, 0, r.cfg.Conns)
	for range r.cfg.Conns {
		c, err := dialWSConn(ctx, url, r.cfg.Timeout, r.cfg.TLS)
		if err != nil {
			for _, c := range conns {
				c.nc.Close()
			}
			return nil, err
		}
		conns = append(conns, c)
	}
	dial := func(ctx context.Context) (*wsConn, error) { return dialWSConn(ctx, url, r.cfg.Timeout, r.cfg.TLS) }
	workers := make([]func(context.Context, *window) error, len(conns))
	for i, c := range conns {
		workers[i] = func(ctx context.Context, w *window) error {
			return keepGoing(ctx, r, w, c, dial, r.serveWS)
		}
	}
	return workers, nil
}

// serveWS runs the pipelined loop on c until it ends, then closes c.
func (r *run) serveWS(ctx context.Context, c *wsConn, w *window) error {
	stop := context.AfterFunc(ctx, func() { c.nc.Close() })
	defer stop()
	err := r.pipeLoop(c, w)
	c.close(err == nil)
	return err
}

// wsConn is one WebSocket connection after the handshake.
type wsConn struct {
	nc   net.Conn
	rd   ws.Reader
	out  []byte // frames to write
	msg  []byte // the message being framed
	pong []byte // pong frames owed to the server's pings
}

func dialWSConn(ctx context.Context, url string, timeout time.Duration, cfg *tls.Config) (*wsConn, error) {
	var hc *ws.HandshakeConn
	dial := func(nd dialer) func(context.Context, string, string) (net.Conn, error) {
		return func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := nd.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			hc = &ws.HandshakeConn{Conn: c}
			return hc, nil
		}
	}
	d := &websocket.Dialer{
		HandshakeTimeout:  timeout,
		NetDialContext:    dial(&net.Dialer{Timeout: timeout}),
		NetDialTLSContext: dial(&tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: cfg}),
	}
	_, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return nil, errors.New("load: websocket handshake with " + url + ": " + resp.Status + ": " + err.Error())
		}
		return nil, err
	}
	c := &wsConn{nc: hc, out: make([]byte, 0, 64<<10), msg: make([]byte, 0, 4<<10)}
	c.rd.Reset(hc, ws.Client, maxAnswer)
	return c, nil
}

// mask returns a fresh masking key for a frame.
func mask() ws.Mask { return ws.MaskWith(rand.Uint32()) }

// close ends the connection: after a run that ended well with the closing
// handshake (close 1000, then the server's close frame, waited for at most
// wsByeWait), else at once.
func (c *wsConn) close(graceful bool) {
	defer c.nc.Close()
	if !graceful {
		return
	}
	if c.nc.SetDeadline(time.Now().Add(wsByeWait)) != nil {
		return
	}
	if _, err := c.nc.Write(ws.AppendClose(c.out[:0], ws.CloseNormal, "", mask())); err != nil {
		return
	}
	for {
		if op, _, err := c.rd.Next(); err != nil || op == ws.OpClose {
			return
		}
	}
}

func (c *wsConn) add(req *Request, id uint64) int {
	c.msg = req.Append(c.msg[:0], id)
	c.out = ws.AppendFrame(c.out, ws.OpText, c.msg, mask())
	return len(c.msg)
}

// flush writes the calls' frames and any pongs owed in one write.
func (c *wsConn) flush(timeout time.Duration) error {
	c.out = append(c.out, c.pong...)
	c.pong = c.pong[:0]
	if err := c.nc.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	c.out = c.out[:0]
	return err
}

// readAnswers reads one answer, then every whole one already buffered.
func (c *wsConn) readAnswers(r *run, w *window) error {
	settled := w.counts.OK + w.counts.Errors
	defer func() { r.progress(w.counts.OK + w.counts.Errors - settled) }()
	for wait := true; ; wait = false {
		msg, ok, err := c.answer(wait)
		switch {
		case err != nil:
			if isTooLarge(err) {
				w.counts.Malformed++
			}
			return err
		case !ok:
			return nil
		}
		w.check(msg, r.now())
		if w.inflight() == 0 {
			return nil
		}
	}
}

func isTooLarge(err error) bool {
	var tooLarge *ws.TooLargeError
	return errors.As(err, &tooLarge)
}

// answer returns the next message from the server, valid until the next
// call, dealing with the control frames before it: a ping owes a pong, a
// close ends the stream. Unless wait is set it reads nothing: ok says
// whether a message was buffered.
func (c *wsConn) answer(wait bool) (msg []byte, ok bool, err error) {
	for wait || c.rd.Ready() {
		op, p, err := c.rd.Next()
		switch {
		case err != nil:
			return nil, false, err
		case op == ws.OpPing:
			c.pong = ws.AppendFrame(c.pong, ws.OpPong, p, mask())
		case op == ws.OpClose:
			return nil, false, errWSClosed
		case op != ws.OpPong:
			return p, true, nil
		}
	}
	return nil, false, nil
}
