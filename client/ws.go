package client

// NOTE: the WebSocket transport. internal/httpc does the opening
// handshake only; the frames are written and read here, on the connection
// under it (frame/ws). The connection is a ws.HandshakeConn, so the
// handshake reads nothing the server sent after its 101 answer.
//
// Writing is the sender's write combining (sender.go): openFrame reserves
// room for the longest header; sealFrame writes the header, moves the
// payload up against it and masks it; under permessage-deflate it first
// compresses a payload of at least Options.CompressMin bytes (a pooled
// flate writer: the client keeps no context between its messages, and
// offers client_no_context_takeover so that the server need keep none
// either). The reader inflates what the server compressed, keeping the
// server's window when the server keeps context. Control frames (pongs, close) are
// queued the same way (control, sayClose), so they never split a data
// frame; nothing is queued after a close frame.
//
// One reader goroutine (readLoop) takes the server's messages from a
// ws.Reader, which hands them out of its own buffer: reading a message
// allocates nothing. It answers pings, echoes the server's close frame and
// ends the client, and closes with 1009 (1002) when the server breaks the
// message limit (the protocol).

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/internal/httpc"
)

// DialWebSocket connects to url ("ws://host:port/path", or wss with
// Options.TLS or the system's roots; a jetrpc HTTPServer serves WebSocket
// at /ws) and returns a
// client that sends each call, notification and batch as one text message
// and takes each message from the server as one JSON-RPC message or batch.
// ctx bounds the dialing and the handshake only. A server that does not
// accept the handshake is an error wrapping ErrBadHandshake.
//
// As on a stream, the server may call and notify the client (see
// Options.Handler); pings are answered. Close sends a close frame (1000)
// and waits a short grace for the server's before closing the connection.
// When the server closes the connection (1001 when it shuts down), the
// pending calls fail with an error wrapping ErrClosed and a *CloseError. A
// message from the server over Options.MaxMessage closes the connection
// with 1009 (the calls fail with a *ws.TooLargeError of package frame/ws).
// Options.WriteTimeout bounds each write; Options.Framing and IdleTimeout
// do not apply.
//
// The client offers permessage-deflate (RFC 7692) unless
// Options.CompressMin is negative: when the server accepts, messages of at
// least CompressMin bytes go compressed, and the server's compressed
// messages are inflated, held to MaxMessage.
func DialWebSocket(ctx context.Context, url string, opts *Options) (*Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	hdr, _ := headerLines(opts.header())
	t := &wsTransport{url: url, wt: opts.writeTimeout(), tok: opts.token(), tls: opts.tlsConfig(), hdr: []byte(hdr),
		zmin: opts.compressMin()}
	nc, dfl, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	t.setConn(nc, dfl)
	t.init(t, t.nc, opts.maxMessage())
	var seed [32]byte
	crand.Read(seed[:])
	t.keys = rand.NewChaCha8(seed)
	c := newClient(t, opts)
	t.c = c
	if rc := opts.reconnect(); rc != nil {
		t.enableRedial(rc)
	}
	go t.readLoop()
	return c, nil
}

// deflateOffer is the client's permessage-deflate offer: it keeps no
// context of its own, and takes any window the server chooses for it.
var deflateOffer = ws.Deflate{ClientNoContextTakeover: true, ClientMaxWindowBits: 15}

// dial dials the WebSocket and performs the handshake, with a fresh
// credential; it returns the permessage-deflate agreement (nil: none).
func (t *wsTransport) dial(ctx context.Context) (*ws.HandshakeConn, *ws.Deflate, error) {
	hdr := t.hdr
	if t.tok != nil {
		var err error
		if hdr, err = appendBearer(ctx, t.tok, slices.Clip(hdr)); err != nil {
			return nil, nil, err
		}
	}
	o := httpc.WSOptions{TLS: t.tls, UserAgent: userAgent, Header: hdr}
	if t.zmin >= 0 {
		offer := deflateOffer
		o.Deflate = &offer
	}
	nc, dfl, err := httpc.DialWebSocket(ctx, t.url, o)
	if err != nil {
		if errors.Is(err, httpc.ErrBadHandshake) {
			err = &dialError{"client: DialWebSocket " + t.url + ": ", err}
		}
		return nil, nil, err
	}
	return nc, dfl, nil
}

// redial dials again and installs the connection.
func (t *wsTransport) redial(ctx context.Context) error {
	nc, dfl, err := t.dial(ctx)
	if err != nil {
		return err
	}
	return t.install(nc, func() {
		t.setConn(nc, dfl)
		t.closeBy.Store(0)
	})
}

// setConn makes nc, with the permessage-deflate agreement dfl (nil: none),
// the connection; t.mu is held, or nothing else runs yet.
func (t *wsTransport) setConn(nc *ws.HandshakeConn, dfl *ws.Deflate) {
	t.nc, t.dfl, t.zip = nc, dfl, nil
	if dfl != nil {
		t.zip = new(ws.Compressor)
		t.zip.Reset(*dfl, ws.Client, t.zmin, true)
	}
}

// dialError prefixes the error of a dial.
type dialError struct {
	prefix string
	err    error
}

func (e *dialError) Error() string { return e.prefix + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

type wsTransport struct {
	sender
	url     string
	tls     *tls.Config
	hdr     []byte            // static header lines
	tok     TokenFunc         // nil: no credential
	nc      *ws.HandshakeConn // replaced under mu on a redial
	dfl     *ws.Deflate       // nc's permessage-deflate agreement (nil: none), under mu
	zip     *ws.Compressor    // compresses under dfl (nil: never), under mu
	zmin    int               // Options.CompressMin (-1: off)
	wt      time.Duration     // write timeout (0: none)
	keys    *rand.ChaCha8     // mask keys, under mu
	closeBy atomic.Int64      // once a close frame is queued (closed), the deadline of every write (Unix ns)
}

func (t *wsTransport) openFrame(b []byte) []byte {
	return append(b, make([]byte, ws.MaxHeaderLen)...)
}

func (t *wsTransport) sealFrame(b []byte, mark, start int) []byte {
	return t.zip.EndFrame(b, mark, start, ws.OpText, t.mask())
}

func (t *wsTransport) writeOut(b []byte) error {
	nc := t.conn()
	err := nc.SetWriteDeadline(t.writeDeadline())
	if err == nil {
		_, err = nc.Write(b)
	}
	return err
}

// conn returns the current connection.
func (t *wsTransport) conn() *ws.HandshakeConn {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nc
}

// reading returns the current connection and its permessage-deflate
// agreement (nil: none).
func (t *wsTransport) reading() (*ws.HandshakeConn, *ws.Deflate) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nc, t.dfl
}

// mask returns a fresh masking key. t.mu must be held.
func (t *wsTransport) mask() ws.Mask { return ws.MaskWith(uint32(t.keys.Uint64())) }

// writeDeadline is the deadline of a write that starts now (zero: none):
// WriteTimeout away, and once closing no later than closeBy.
func (t *wsTransport) writeDeadline() time.Time {
	var dl time.Time
	if t.wt > 0 {
		dl = time.Now().Add(t.wt)
	}
	if by := t.closeBy.Load(); by != 0 && (dl.IsZero() || by < dl.UnixNano()) {
		dl = time.Unix(0, by)
	}
	return dl
}

// control queues a control frame (a pong) and writes it out.
func (t *wsTransport) control(op ws.Opcode, payload []byte) {
	t.mu.Lock()
	if t.closed || t.err != nil || t.down {
		t.mu.Unlock()
		return
	}
	t.q.Out = ws.AppendFrame(t.q.Out, op, payload, t.mask())
	t.kick()
}

// sayClose queues a close frame with code and reason, unless one is queued
// already, after which nothing more is sent, and waits until it is written,
// at most closeGrace (grace fires then). It reports whether the frame was
// written.
func (t *wsTransport) sayClose(code int, reason string, grace <-chan time.Time) bool {
	t.mu.Lock()
	if !t.closed && t.err == nil {
		t.q.Out = ws.AppendClose(t.q.Out, code, reason, t.mask())
		t.closeBy.Store(time.Now().Add(closeGrace).UnixNano())
	}
	t.closed = true
	t.room.Broadcast()
	if t.err != nil {
		t.mu.Unlock()
		return false
	}
	if !t.q.Flushing() {
		return t.kick() == nil
	}
	idle := t.idleChan()
	t.mu.Unlock()
	return waitFor(idle, grace)
}

// close sends a close frame after what is queued and waits for the
// server's, all within closeGrace, then closes the connection.
func (t *wsTransport) close() error {
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	if t.sayClose(ws.CloseNormal, "", grace.C) {
		waitFor(t.readDone, grace.C) // the server's close frame ends the reader
	}
	err := t.closeConn()
	<-t.readDone
	return err
}

// waitFor waits until ch (nil: no wait) is closed or timeout fires, and
// reports whether ch was closed.
func waitFor(ch <-chan struct{}, timeout <-chan time.Time) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	case <-timeout:
		return false
	}
}

// divert is the ws.Reader divert: the sink for a message over MaxMessage
// that answers one of CallTo's calls, else nil.
func (t *wsTransport) divert(head []byte) ws.Sink {
	if rs := t.c.divertResult(head); rs != nil {
		return rs
	}
	return nil
}

// readLoop delivers the messages read and answers the control frames until
// the connection fails or is closed, then closes the client, or, with
// Options.Reconnect, redials and goes on.
func (t *wsTransport) readLoop() {
	defer close(t.readDone)
	st := newInState(t.max)
	var rd ws.Reader
	for {
		nc, dfl := t.reading()
		rd.Reset(nc, ws.Client, t.max)
		rd.SetDivert(t.divert) // results over MaxMessage of CallTo's calls (callto.go)
		if dfl != nil {
			rd.SetDeflate(*dfl)
		}
		redial := t.read(st, &rd)
		if !redial || !t.redialLoop(t.redial) {
			return
		}
	}
}

// read reads one connection until it ends; it reports whether to redial.
func (t *wsTransport) read(st *inState, rd *ws.Reader) bool {
	for {
		if len(st.later.fs) > 0 && !rd.Ready() {
			st.later.run() // before a read that may wait
		}
		op, p, err := rd.Next()
		switch {
		case err != nil:
			st.later.run()
			return t.readFailed(err)
		case op == ws.OpPing:
			t.control(ws.OpPong, p)
		case op == ws.OpClose:
			code, reason := ws.ParseClose(p)
			return t.end(&CloseError{Code: code, Text: string(reason)}, code, "") // the echo
		case op != ws.OpPong:
			t.c.deliver(st, p)
		}
	}
}

// readFailed ends the connection after a read error. A broken rule is
// answered with a close frame: 1009 for the message limit (the calls fail
// with the *ws.TooLargeError), 1002 for the protocol, 1007 for a text
// message that is not UTF-8 or a compressed one that does not inflate. The end of the stream without a close frame
// is a *CloseError with CloseAbnormal.
func (t *wsTransport) readFailed(err error) bool {
	var tooLarge *ws.TooLargeError
	switch code := ws.CloseCode(err); {
	case errors.As(err, &tooLarge):
		e := *tooLarge
		return t.end(&e, ws.CloseTooBig, "")
	case code != 0: // 1002 for the protocol, 1007 for bad UTF-8 or compressed data
		return t.end(err, code, err.Error())
	case err == io.EOF, err == io.ErrUnexpectedEOF:
		return t.end(&CloseError{Code: CloseAbnormal, Text: io.ErrUnexpectedEOF.Error()}, 0, "")
	}
	return t.end(err, 0, "")
}

// end fails the calls in flight with err (and the client, unless it
// redials), sends a close frame with code and reason unless code is 0
// (waiting at most closeGrace) and closes the connection. It reports
// whether to redial.
func (t *wsTransport) end(err error, code int, reason string) bool {
	redial := t.lose(err)
	if code != 0 {
		grace := time.NewTimer(closeGrace)
		defer grace.Stop()
		t.sayClose(code, reason, grace.C)
	}
	t.closeConn()
	return redial
}
