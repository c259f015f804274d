package client

// NOTE: the WebSocket transport. fasthttp/websocket makes the connection
// and reads messages (NextReader; it answers pings and close frames), but
// data frames are built here, in place in the outgoing buffer: NextWriter
// would allocate a writer and a mask key per message. Writing works as in
// stream.go: begin takes mu and reserves room for the longest header; send
// writes the header, moves the payload up against it and masks it; the
// sender that finds no flush running writes out, many frames at once,
// outside the lock. wsNetConn, under the library, makes the library's own
// writes (pongs, close frames) take turns with ours. The floor is one
// allocation per message read: NextReader allocates its io.Reader.

import (
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
)

const (
	// wsMaxHeader is the longest header of a client frame: 2 bytes, a
	// 64-bit length and a 4-byte mask key.
	wsMaxHeader = 14
	wsReadBuf   = 4 << 10
)

// DialWebSocket connects to url ("ws://host:port/path", or wss with the
// system's roots; a jetrpc HTTPServer serves WebSocket at /ws) and returns a
// client that sends each call, notification and batch as one text message
// and takes each message from the server as one JSON-RPC message or batch.
// ctx bounds the dialing and the handshake only.
//
// As on a stream, the server may call and notify the client (see
// Options.Handler); pings are answered. Close sends a close frame (1000)
// and waits a short grace for the server's before closing the connection.
// When the server closes the connection (1001 when it shuts down), the
// pending calls fail with an error wrapping ErrClosed and the
// *websocket.CloseError. Options.WriteTimeout bounds each write;
// Options.Framing and IdleTimeout do not apply.
func DialWebSocket(ctx context.Context, url string, opts *Options) (*Client, error) {
	t := &wsTransport{max: opts.maxMessage(), wt: opts.writeTimeout(), readDone: make(chan struct{})}
	t.room.L = &t.mu
	ws, err := t.dial(ctx, url)
	if err != nil {
		return nil, err
	}
	t.ws = ws
	ws.SetReadLimit(int64(t.max)) // over it, the library sends 1009
	var seed [32]byte
	crand.Read(seed[:])
	t.keys = rand.NewChaCha8(seed)
	c := newClient(t, opts)
	t.c = c
	go t.readLoop()
	return c, nil
}

// dial connects to url and sets t.nc.
func (t *wsTransport) dial(ctx context.Context, url string) (*websocket.Conn, error) {
	var stop func() bool
	d := websocket.Dialer{
		ReadBufferSize:    wsReadBuf,
		WriteBufferSize:   1, // data frames are written here; WriteControl has its own buffer
		NetDialContext:    t.netDial(&net.Dialer{}, &stop),
		NetDialTLSContext: t.netDial(&tls.Dialer{}, &stop),
	}
	ws, resp, err := d.DialContext(ctx, url, nil)
	if stop != nil && !stop() { // ctx ended: the connection may be unusable
		if ws != nil {
			ws.Close()
		}
		return nil, ctx.Err()
	}
	if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
		err = fmt.Errorf("client: DialWebSocket %s: %w (HTTP status %d)", url, err, resp.StatusCode)
	}
	return ws, err
}

// netDial returns a dial function for the library that wraps the
// connection d makes in t.nc and has the end of ctx interrupt the
// handshake too (the library only applies ctx's deadline); *stop undoes
// that.
func (t *wsTransport) netDial(d interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}, stop *func() bool) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		t.nc = &wsNetConn{Conn: nc}
		*stop = context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
		return t.nc, nil
	}
}

// wsNetConn is the connection under the library. Its writes (the
// library's: the handshake, control frames) take mu as wsTransport's do,
// with the deadline the library set: that is kept here rather than set on
// the connection, which a write of ours may be using. (The handshake's
// request, written on a fresh connection, thus ignores ctx's deadline; the
// reading of the response does not.)
type wsNetConn struct {
	net.Conn
	mu sync.Mutex // one write at a time
	dl time.Time  // the library's write deadline
}

func (c *wsNetConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.dl = t
	c.mu.Unlock()
	return nil
}

func (c *wsNetConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	dl := c.dl
	c.mu.Unlock()
	return c.writeBy(b, dl)
}

// writeBy writes b with the deadline dl (zero: none).
func (c *wsNetConn) writeBy(b []byte, dl time.Time) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Conn.SetWriteDeadline(dl); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

type wsTransport struct {
	c    *Client
	ws   *websocket.Conn
	nc   *wsNetConn
	max  int
	wt   time.Duration // write timeout (0: none)
	keys *rand.ChaCha8 // mask keys, under mu

	mu       sync.Mutex
	room     sync.Cond // signalled when a write ends
	out      outMsg    // queued frames, then the message being appended
	spare    []byte
	flushing bool
	closed   bool
	err      error         // a write failed
	idle     chan struct{} // closed when the flush in progress ends

	closeOnce sync.Once
	closeErr  error
	readDone  chan struct{}
}

func (t *wsTransport) stream() bool { return true }

func (t *wsTransport) begin() (*outMsg, error) {
	t.mu.Lock()
	for t.flushing && len(t.out.b) >= maxQueued && !t.closed && t.err == nil {
		t.room.Wait()
	}
	if t.closed || t.err != nil {
		err := t.err
		t.mu.Unlock()
		return nil, t.closedErr(err)
	}
	m := &t.out
	m.mark = len(m.b)
	m.b = append(m.b, make([]byte, wsMaxHeader)...)
	m.start = len(m.b)
	return m, nil
}

// closedErr is the error of a message that cannot be sent any more.
func (t *wsTransport) closedErr(writeErr error) error {
	if err := t.c.closedErr(); err != nil {
		return err
	}
	if writeErr != nil {
		return lost(writeErr)
	}
	return ErrClosed
}

func (t *wsTransport) send(_ context.Context, m *outMsg, _ []uint64) error {
	if len(m.b)-m.start > t.max {
		m.b = m.b[:m.mark]
		t.mu.Unlock()
		return ErrTooLarge
	}
	m.b = endWSFrame(m.b, m.mark, m.start, uint32(t.keys.Uint64()))
	if t.flushing {
		t.mu.Unlock()
		return nil
	}
	t.flushing = true
	err := t.flush()
	t.flushing = false
	if t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
	t.mu.Unlock()
	if err != nil {
		t.c.fail(lost(err))
		t.closeConn()
		return t.closedErr(err)
	}
	return nil
}

// flush writes out until it stays empty. t.mu is held on entry and on
// return, but not during the writes.
func (t *wsTransport) flush() error {
	for len(t.out.b) > 0 {
		buf := t.out.b
		t.out.b, t.spare = t.spare[:0], nil
		t.mu.Unlock()
		var dl time.Time
		if t.wt > 0 {
			dl = time.Now().Add(t.wt)
		}
		_, err := t.nc.writeBy(buf, dl)
		t.mu.Lock()
		if cap(buf) <= maxKeptOut {
			t.spare = buf[:0]
		}
		t.room.Broadcast()
		if err != nil {
			t.err = err
			t.out.b = t.out.b[:0]
			return err
		}
	}
	return nil
}

// endWSFrame completes the frame begun at b[mark], whose payload starts at
// b[start] after wsMaxHeader reserved bytes: it writes the header of a
// final, masked text frame, moves the payload up against it and masks it
// with key (RFC 6455 section 5). It returns the slice holding the frame.
func endWSFrame(b []byte, mark, start int, key uint32) []byte {
	n := len(b) - start
	var tmp [wsMaxHeader]byte
	h := append(tmp[:0], 0x81) // FIN, text
	switch {
	case n < 126:
		h = append(h, 0x80|byte(n))
	case n < 1<<16:
		h = binary.BigEndian.AppendUint16(append(h, 0x80|126), uint16(n))
	default:
		h = binary.BigEndian.AppendUint64(append(h, 0x80|127), uint64(n))
	}
	h = binary.LittleEndian.AppendUint32(h, key)
	p := mark + copy(b[mark:], h)
	copy(b[p:], b[start:])
	b = b[:p+n]
	maskWS(b[p:], key)
	return b
}

// maskWS XORs byte i of b with byte i%4 of key, written little-endian.
func maskWS(b []byte, key uint32) {
	k := uint64(key) | uint64(key)<<32
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
		b = b[8:]
	}
	for i := range b {
		b[i] ^= byte(key >> (8 * (i & 3)))
	}
}

// close lets a write in progress finish, sends a close frame and waits for
// the server's, all within closeGrace, then closes the connection.
func (t *wsTransport) close() error {
	deadline := time.Now().Add(closeGrace)
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	t.mu.Lock()
	t.closed = true
	var idle chan struct{}
	if t.flushing {
		idle = make(chan struct{})
		t.idle = idle
	}
	t.room.Broadcast()
	t.mu.Unlock()
	if waitFor(idle, grace.C) {
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		if t.ws.WriteControl(websocket.CloseMessage, msg, deadline) == nil {
			waitFor(t.readDone, grace.C) // the server's close frame ends the reader
		}
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

func (t *wsTransport) closeConn() error {
	t.closeOnce.Do(func() { t.closeErr = t.ws.Close() })
	return t.closeErr
}

// readLoop delivers the messages read until the connection fails or is
// closed, then closes the client.
func (t *wsTransport) readLoop() {
	defer close(t.readDone)
	st := newInState(t.max)
	msg := make([]byte, 0, 512)
	for {
		_, r, err := t.ws.NextReader()
		if err == nil {
			msg, err = appendAll(msg[:0], r)
		}
		if err != nil {
			t.c.fail(lost(err))
			t.closeConn()
			return
		}
		t.c.deliver(st, msg)
		if cap(msg) > maxKeptOut {
			msg = make([]byte, 0, 512)
		}
	}
}

// appendAll appends what r holds to b.
func appendAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
