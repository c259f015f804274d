package httpc

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"errors"
	neturl "net/url"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// ErrBadHandshake is wrapped by the error of a WebSocket handshake that the
// server refused or answered wrongly.
var ErrBadHandshake = errors.New("bad WebSocket handshake")

// HandshakeError is the error of a WebSocket handshake the server did not
// accept.
type HandshakeError struct {
	Status int    // the answer's status
	Reason string // what was wrong with a 101 answer, if that
	Body   []byte // the start of the answer's body (at most 512 bytes): the server's message
}

func (e *HandshakeError) Error() string {
	s := ErrBadHandshake.Error() + " (HTTP status " + strconv.Itoa(e.Status) + ")"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if body := bytes.TrimSpace(e.Body); len(body) > 0 {
		s += ": " + strconv.Quote(string(body))
	}
	return s
}

// bodyStart reads the start of a refusal's body, at most 512 bytes, when
// its length is given (a server's "missing credentials", say).
func (cn *conn) bodyStart(h *Head) []byte {
	if !h.hasBody() || h.Chunked || h.ContentLength <= 0 {
		return nil
	}
	b, err := cn.readN(nil, int(min(h.ContentLength, 512)))
	if err != nil {
		return nil
	}
	return b
}

func (e *HandshakeError) Unwrap() error { return ErrBadHandshake }

// wsGUID is the key suffix of RFC 6455's Sec-WebSocket-Accept.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// WSOptions configures DialWebSocket.
type WSOptions struct {
	TLS       *tls.Config // for wss (nil: the system's roots)
	UserAgent string      // the User-Agent header (empty: none)
	Header    []byte      // header lines sent with the handshake, each ending "\r\n"
	// Deflate, if not nil, is the permessage-deflate offer (RFC 7692) sent
	// with the handshake.
	Deflate *ws.Deflate
}

// DialWebSocket connects to rawURL (ws:// or wss://, over TLS with o.TLS,
// nil meaning the system's roots) and performs the opening handshake, all
// within ctx: its end interrupts the handshake and is the error. It
// returns the connection, which hands out the frames that follow the
// server's 101 answer from their first byte, and, when o offered
// permessage-deflate and the server accepted, the agreement (nil: none). An
// answer that does not fit the offer fails the handshake.
func DialWebSocket(ctx context.Context, rawURL string, o WSOptions) (*ws.HandshakeConn, *ws.Deflate, error) {
	cfg := o.TLS
	u, err := neturl.Parse(rawURL)
	if err != nil {
		return nil, nil, err
	}
	if u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "" || u.User != nil {
		return nil, nil, errors.New("httpc: want a ws or wss URL with a host (and no user), got " + rawURL)
	}
	if u.Scheme == "wss" {
		cfg = tlsFor(cfg, u.Hostname())
	} else {
		cfg = nil
	}
	nc, err := dialContext(ctx, hostPort(u), cfg)
	if err != nil {
		return nil, nil, err
	}
	hc := &ws.HandshakeConn{Conn: nc}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	agreed, err := handshake(hc, u, &o)
	if !stop() { // ctx ended: the connection may be unusable
		nc.Close()
		return nil, nil, ctx.Err()
	}
	if err == nil {
		err = nc.SetDeadline(time.Time{})
	}
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return hc, agreed, nil
}

// handshake sends the opening handshake for u over hc and checks the
// answer, reading no byte past it; it returns the permessage-deflate
// agreement, if any.
func handshake(hc *ws.HandshakeConn, u *neturl.URL, o *WSOptions) (*ws.Deflate, error) {
	var key [24]byte
	var nonce [16]byte
	crand.Read(nonce[:])
	base64.StdEncoding.Encode(key[:], nonce[:])
	b := append([]byte("GET "), requestURI(u)...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, u.Host...)
	if o.UserAgent != "" {
		b = append(append(b, "\r\nUser-Agent: "...), o.UserAgent...)
	}
	b = append(b, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "...)
	b = append(b, key[:]...)
	b = append(b, "\r\nSec-WebSocket-Version: 13\r\n"...)
	if o.Deflate != nil {
		b = append(ws.AppendDeflate(append(b, "Sec-WebSocket-Extensions: "...), *o.Deflate, true), "\r\n"...)
	}
	b = append(append(b, o.Header...), "\r\n"...)
	if _, err := hc.Write(b); err != nil {
		return nil, err
	}
	cn := conn{nc: hc}
	head, err := cn.readHead()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	var h Head
	if err := h.parse(head); err != nil {
		return nil, err
	}
	sum := sha1.Sum(append(key[:], wsGUID...))
	want := base64.StdEncoding.AppendEncode(nil, sum[:])
	switch {
	case h.Status != 101:
		return nil, &HandshakeError{Status: h.Status, Body: cn.bodyStart(&h)}
	case !hasToken(h.Get("Upgrade"), "websocket"):
		return nil, &HandshakeError{Status: 101, Reason: "no Upgrade: websocket"}
	case !hasToken(h.Get("Connection"), "upgrade"):
		return nil, &HandshakeError{Status: 101, Reason: "no Connection: Upgrade"}
	case !bytes.Equal(h.Get("Sec-WebSocket-Accept"), want):
		return nil, &HandshakeError{Status: 101, Reason: "wrong Sec-WebSocket-Accept"}
	}
	return extensions(&h, o.Deflate)
}

// extensions checks the answer's Sec-WebSocket-Extensions against the
// offer (nil: none, and then any extension is an error) and returns the
// agreement.
func extensions(h *Head, offer *ws.Deflate) (*ws.Deflate, error) {
	var ext string
	for l := range h.lines() { // every Sec-WebSocket-Extensions line, joined
		if n, v, ok := bytes.Cut(l, []byte(":")); ok && fold(n, "Sec-WebSocket-Extensions") {
			if ext != "" {
				ext += ","
			}
			ext += string(bytes.TrimSpace(v))
		}
	}
	if offer == nil {
		if ext != "" {
			return nil, &HandshakeError{Status: 101, Reason: "an extension not offered: " + ext}
		}
		return nil, nil
	}
	d, ok, err := ws.ParseDeflateAnswer(ext, *offer)
	switch {
	case err != nil:
		return nil, &HandshakeError{Status: 101, Reason: err.Error() + ": " + ext}
	case !ok:
		return nil, nil
	}
	return &d, nil
}
