package load

// NOTE: the WebSocket transport. fasthttp/websocket's Dialer does the opening
// handshake; the frames are then written and read here, on the raw
// connection, by the same loop as TCP's: a burst of calls is appended as
// masked text frames to one buffer and written at once, and the answers are
// cut out of one read buffer without copying (wsReader). The websocket
// package's Conn allocates a reader and a writer per message and writes each
// message with a system call of its own; this way a call allocates nothing,
// as over TCP.
//
// So that no byte the server sends after its 101 answer is left behind in
// the Dialer's buffer, the connection under the Dialer (wsHandshakeConn)
// hands out nothing past the end of the answer's header block and keeps what
// it read beyond it for the wsReader. Only ws:// can work this way: under
// wss:// the frames would have to go through the Dialer's TLS connection.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/fasthttp/websocket"
)

// WebSocket frame bits (RFC 6455 section 5.2).
const (
	wsFin     = 0x80
	wsRSV     = 0x70
	wsMaskBit = 0x80
	wsCont    = 0x0
	wsText    = 0x1
	wsBinary  = 0x2
	wsClose   = 0x8
	wsPing    = 0x9
	wsPong    = 0xA
	wsMaxCtl  = 125      // control frame payload limit
	wsMaxHdr  = 14       // longest frame header (client side, masked)
	wsInitBuf = 16 << 10 // first read buffer
	wsMinRead = 512      // compact rather than read into a shorter tail
	wsPath    = "/ws"    // where jetrpc serves WebSocket
	wsByeWait = time.Second
)

var (
	errWSClosed    = errors.New("load: websocket: the server closed the connection")
	errWSMasked    = errors.New("load: websocket: masked frame from the server")
	errWSReserved  = errors.New("load: websocket: reserved bits set (no extension was agreed)")
	errWSControl   = errors.New("load: websocket: fragmented or oversized control frame")
	errWSOpcode    = errors.New("load: websocket: unknown opcode")
	errWSFragment  = errors.New("load: websocket: bad fragment sequence")
	errWSTooLarge  = errors.New("load: websocket: message over the answer limit")
	errWSScheme    = errors.New("load: websocket: only ws:// is supported (the frames are written on the raw connection)")
	wsNormalClosed = []byte{0x03, 0xe8} // close status 1000
)

// wsURL is the URL to dial for addr: a ws:// URL as given, else
// ws://ADDR/ws, the path jetrpc serves WebSocket on.
func wsURL(addr string) (string, error) {
	switch {
	case strings.HasPrefix(addr, "ws://"):
		return addr, nil
	case strings.Contains(addr, "://"):
		return "", errWSScheme
	}
	return "ws://" + addr + wsPath, nil
}

// dialWS opens the connections and returns a worker for each.
func (r *run) dialWS(ctx context.Context) ([]func(context.Context, *window) error, error) {
	url, err := wsURL(r.cfg.Addr)
	if err != nil {
		return nil, err
	}
	conns := make([]*wsConn, 0, r.cfg.Conns)
	for range r.cfg.Conns {
		c, err := dialWSConn(ctx, url, r.cfg.Timeout)
		if err != nil {
			for _, c := range conns {
				c.nc.Close()
			}
			return nil, err
		}
		conns = append(conns, c)
	}
	workers := make([]func(context.Context, *window) error, len(conns))
	for i, c := range conns {
		workers[i] = func(ctx context.Context, w *window) error {
			stop := context.AfterFunc(ctx, func() { c.nc.Close() })
			defer stop()
			err := r.wsLoop(c, w)
			c.close(err == nil)
			return err
		}
	}
	return workers, nil
}

// wsConn is one WebSocket connection after the handshake.
type wsConn struct {
	nc  net.Conn
	rd  wsReader
	out []byte // frames to write
	msg []byte // the message being framed
}

func dialWSConn(ctx context.Context, url string, timeout time.Duration) (*wsConn, error) {
	var hc *wsHandshakeConn
	nd := &net.Dialer{Timeout: timeout}
	d := &websocket.Dialer{
		HandshakeTimeout: timeout,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := nd.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			hc = &wsHandshakeConn{Conn: c}
			return hc, nil
		},
	}
	_, resp, err := d.DialContext(ctx, url, nil)
	if err != nil {
		if resp != nil {
			return nil, errors.New("load: websocket handshake with " + url + ": " + resp.Status + ": " + err.Error())
		}
		return nil, err
	}
	c := &wsConn{nc: hc.Conn, out: make([]byte, 0, 64<<10), msg: make([]byte, 0, 4<<10)}
	c.rd.reset(hc.Conn, hc.rest, maxAnswer)
	return c, nil
}

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
	if _, err := c.nc.Write(appendWSFrame(c.out[:0], wsClose, wsNormalClosed)); err != nil {
		return
	}
	for {
		if _, err := c.rd.Next(); err != nil {
			return
		}
	}
}

// wsLoop is tcpLoop over WebSocket: fill the window, write the calls' frames
// (and any pongs owed) in one write, read every answer that has arrived (at
// least one), and again, until the bound is hit and nothing is in flight, or
// the connection fails. When no answer comes for Timeout, the calls in flight
// are given up (Unanswered) and it goes on.
func (r *run) wsLoop(c *wsConn, w *window) error {
	p := r.cfg.Pipeline
	stopped := false
	for {
		now := r.now()
		notes := 0
		for !stopped && w.inflight() < p && notes < p { // at most p notifications a burst
			req := r.claim(w, now)
			if req == nil {
				stopped = true
				break
			}
			if req.Holes() == 0 {
				c.msg = req.Append(c.msg[:0], 0)
				notes++
			} else {
				c.msg = req.Append(c.msg[:0], w.start(req, now))
			}
			c.out = appendWSFrame(c.out, wsText, c.msg)
			w.counts.Sent++
			w.counts.BytesOut += int64(len(c.msg))
		}
		c.out = append(c.out, c.rd.pong...)
		c.rd.pong = c.rd.pong[:0]
		if err := c.nc.SetDeadline(time.Now().Add(r.cfg.Timeout)); err != nil {
			return err
		}
		if len(c.out) > 0 {
			if _, err := c.nc.Write(c.out); err != nil {
				return err
			}
			c.out = c.out[:0]
		}
		if notes > 0 {
			w.counts.Notifications += int64(notes)
			w.last = r.now()
			r.progress(int64(notes))
		}
		if w.inflight() == 0 {
			if stopped {
				return nil
			}
			continue
		}
		if err := r.readWSAnswers(&c.rd, w); err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				return err
			}
			w.finish() // silent for Timeout: give up on the calls in flight
		}
	}
}

// readWSAnswers reads one answer, then every whole one already buffered.
func (r *run) readWSAnswers(rd *wsReader, w *window) error {
	settled := w.counts.OK + w.counts.Errors
	defer func() { r.progress(w.counts.OK + w.counts.Errors - settled) }()
	for {
		msg, err := rd.Next()
		if err != nil {
			if err == errWSTooLarge {
				w.counts.Malformed++
			}
			return err
		}
		w.check(msg, r.now())
		if !rd.Ready() || w.inflight() == 0 {
			return nil
		}
	}
}

// appendWSFrame appends payload to dst as one client frame: final, opcode
// op, masked with a fresh key.
func appendWSFrame(dst []byte, op byte, payload []byte) []byte {
	n := len(payload)
	switch {
	case n <= wsMaxCtl:
		dst = append(dst, wsFin|op, wsMaskBit|byte(n))
	case n <= 0xffff:
		dst = append(dst, wsFin|op, wsMaskBit|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, wsFin|op, wsMaskBit|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	key := rand.Uint32()
	dst = binary.LittleEndian.AppendUint32(dst, key)
	start := len(dst)
	dst = append(dst, payload...)
	maskWS(dst[start:], key)
	return dst
}

// maskWS XORs b with the masking key whose four bytes are key's in
// little-endian order.
func maskWS(b []byte, key uint32) {
	k := uint64(key) | uint64(key)<<32
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^k)
	}
	for ; i < len(b); i++ {
		b[i] ^= byte(key >> (8 * (i & 3)))
	}
}

// wsReader hands out the messages of a server's frames. All input lives in
// buf: buf[r:w] is read and not yet handed out. step (no I/O) cuts the next
// frame out of it and either hands out a message or deals with the frame
// (a fragment is kept, a ping owes a pong, a pong is dropped, a close ends
// the stream); when it needs more bytes it says how many, from r, and fill
// reads once. Errors other than the reader's are sticky.
type wsReader struct {
	rd      io.Reader
	buf     []byte // len(buf) == cap(buf)
	r, w    int
	max     int    // message limit
	frag    []byte // the fragments of a message so far
	inFrag  bool
	pong    []byte // pong frames owed to the server's pings, for the writer
	err     error
	pending []byte // a message cut by Ready, for Next
	hasPend bool
}

// reset makes rd read a stream whose first bytes, already read, are
// buffered.
func (rd *wsReader) reset(r io.Reader, buffered []byte, maxMessage int) {
	buf := rd.buf
	if len(buf) < max(wsInitBuf, len(buffered)) {
		buf = make([]byte, max(wsInitBuf, 2*len(buffered)))
	}
	*rd = wsReader{rd: r, buf: buf, max: maxMessage, frag: rd.frag[:0], pong: rd.pong[:0]}
	rd.w = copy(buf, buffered)
}

// Next returns the next message (text or binary): a slice of the reader's
// buffer valid until the next call to Next.
func (rd *wsReader) Next() ([]byte, error) {
	if rd.hasPend {
		msg := rd.pending
		rd.pending, rd.hasPend = nil, false
		return msg, nil
	}
	for {
		msg, want, err := rd.step()
		if want == 0 {
			return msg, err
		}
		if err := rd.fill(want); err != nil {
			return nil, err
		}
	}
}

// Ready reports whether Next will return without reading: a whole message
// (or an error) is buffered.
func (rd *wsReader) Ready() bool {
	if rd.hasPend {
		return true
	}
	msg, want, err := rd.step()
	switch {
	case want > 0:
		return false
	case err == nil:
		rd.pending, rd.hasPend = msg, true
	}
	return true
}

// step cuts frames out of buf[r:w] until a message is whole; want > 0 is
// the number of bytes from r it needs buffered to go on.
func (rd *wsReader) step() (msg []byte, want int, err error) {
	for rd.err == nil {
		b := rd.buf[rd.r:rd.w]
		if len(b) < 2 {
			return nil, 2, nil
		}
		n, hdr := uint64(b[1]&0x7f), 2
		switch n {
		case 126:
			hdr = 4
		case 127:
			hdr = 10
		}
		if len(b) < hdr {
			return nil, hdr, nil
		}
		switch hdr {
		case 4:
			n = uint64(binary.BigEndian.Uint16(b[2:]))
		case 10:
			n = binary.BigEndian.Uint64(b[2:])
		}
		op, fin := b[0]&0x0f, b[0]&wsFin != 0
		switch {
		case b[0]&wsRSV != 0:
			rd.err = errWSReserved
		case b[1]&wsMaskBit != 0:
			rd.err = errWSMasked
		case op >= wsClose && (!fin || n > wsMaxCtl):
			rd.err = errWSControl
		case n > uint64(rd.max) || rd.inFrag && uint64(len(rd.frag))+n > uint64(rd.max):
			rd.err = errWSTooLarge
		}
		if rd.err != nil {
			break
		}
		end := hdr + int(n)
		if len(b) < end {
			return nil, end, nil
		}
		payload := b[hdr:end:end]
		rd.r += end
		switch op {
		case wsText, wsBinary:
			if rd.inFrag {
				rd.err = errWSFragment
			} else if fin {
				return payload, 0, nil
			} else {
				rd.frag, rd.inFrag = append(rd.frag[:0], payload...), true
			}
		case wsCont:
			if !rd.inFrag {
				rd.err = errWSFragment
				break
			}
			rd.frag = append(rd.frag, payload...)
			if fin {
				rd.inFrag = false
				return rd.frag, 0, nil
			}
		case wsPing:
			rd.pong = appendWSFrame(rd.pong, wsPong, payload)
		case wsPong:
		case wsClose:
			rd.err = errWSClosed
		default:
			rd.err = errWSOpcode
		}
	}
	return nil, 0, rd.err
}

// fill makes room for want bytes from r (compact, or grow up to the
// message limit plus a header) and reads once.
func (rd *wsReader) fill(want int) error {
	if rd.r == rd.w {
		rd.r, rd.w = 0, 0
	}
	if rd.r > 0 && (rd.r+want > len(rd.buf) || len(rd.buf)-rd.w < wsMinRead) {
		rd.w = copy(rd.buf, rd.buf[rd.r:rd.w])
		rd.r = 0
	}
	if want > len(rd.buf) {
		buf := make([]byte, max(want, min(2*len(rd.buf), rd.max+wsMaxHdr)))
		rd.w = copy(buf, rd.buf[rd.r:rd.w])
		rd.r, rd.buf = 0, buf
	}
	n, err := rd.rd.Read(rd.buf[rd.w:])
	rd.w += n
	switch {
	case n > 0:
		return nil
	case err == nil:
		return io.ErrNoProgress
	}
	return err
}

// wsHandshakeConn is the connection under the Dialer. Until the end of the
// handshake answer's header block (its first empty line) it hands out no
// byte beyond that end; what it read past it waits in rest.
type wsHandshakeConn struct {
	net.Conn
	done      bool // the header block has ended
	lineStart bool // the last byte ended a line
	rest      []byte
}

func (c *wsHandshakeConn) Read(b []byte) (int, error) {
	if c.done { // only a failed handshake reads on (its body)
		if len(c.rest) > 0 {
			n := copy(b, c.rest)
			c.rest = c.rest[n:]
			return n, nil
		}
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b)
	for i, ch := range b[:n] {
		switch {
		case ch == '\n' && c.lineStart:
			c.done, c.rest = true, bytes.Clone(b[i+1:n])
			return i + 1, err
		case ch == '\n':
			c.lineStart = true
		case ch != '\r':
			c.lineStart = false
		}
	}
	return n, err
}
