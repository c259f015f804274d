package httpc

// NOTE: one connection and its reading. buf is a read buffer: buf[r:w] is
// read and not yet used. readHead returns a response's head (status line
// and header lines) out of buf; the body is copied from what buf holds and
// the rest read straight into the caller's slice. A response that ends
// with the connection (no Content-Length, not chunked) closes it.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz"
)

const (
	readBuf = 4 << 10  // a connection's first read buffer
	maxHead = 64 << 10 // the largest head (or chunk-size line)
)

type conn struct {
	nc          net.Conn
	buf         []byte
	r, w        int
	out         []byte // the request being written
	coded       []byte // a compressed body, before it is inflated
	idleSince   time.Time
	reused      bool // it served a request before this one
	writeFailed bool // the last request's write failed
	deadline    bool // a deadline is set on nc
	reusable    bool // PostStream read the whole answer
}

// dial connects to addr, over TLS with cfg unless it is nil, by dl (and
// within dialTimeout).
func dial(addr string, cfg *tls.Config, dl time.Time) (net.Conn, error) {
	if limit := time.Now().Add(dialTimeout); dl.IsZero() || limit.Before(dl) {
		dl = limit
	}
	ctx, cancel := context.WithDeadline(context.Background(), dl)
	defer cancel()
	return dialContext(ctx, addr, cfg)
}

// dialContext connects to addr, over TLS with cfg unless it is nil, the
// handshake within ctx.
func dialContext(ctx context.Context, addr string, cfg *tls.Config) (net.Conn, error) {
	if cfg != nil {
		d := tls.Dialer{Config: cfg}
		return d.DialContext(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// roundTrip writes the request and reads the answer into resp.
func (cn *conn) roundTrip(c *Client, hdr, body []byte, resp *Response, dl time.Time) error {
	if !dl.IsZero() || cn.deadline {
		if err := cn.nc.SetDeadline(dl); err != nil {
			return err
		}
		cn.deadline = !dl.IsZero()
	}
	b := append(cn.out[:0], c.prefix...)
	b = append(b, hdr...)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	_, err := cn.nc.Write(b)
	if cap(b) > maxKept {
		b = nil
	}
	cn.out = b[:0]
	cn.writeFailed = err != nil
	if err != nil {
		return err
	}
	return cn.readResponse(resp, c.maxBody)
}

// readResponse reads one answer (after any 1xx ones) into resp.
func (cn *conn) readResponse(resp *Response, maxBody int) error {
	for first := true; ; first = false {
		head, err := cn.readHead()
		if err != nil {
			if first && cn.w == 0 && !errors.Is(err, os.ErrDeadlineExceeded) {
				err = &closedError{err} // nothing of an answer came
			}
			return err
		}
		var h Head
		if err := h.parse(head); err != nil {
			return err
		}
		resp.StatusCode, resp.close = h.Status, h.Close
		if h.Status >= 200 || h.Status == 101 {
			if h.Encoding != httpz.Identity || h.BadEncoding {
				return cn.readCoded(resp, &h, maxBody)
			}
			resp.Body, err = cn.readBody(resp.Body[:0], &h, maxBody)
			resp.close = resp.close || h.untilClose()
			return err
		}
	}
}

// readCoded reads a compressed body and inflates it into resp.Body, held
// to maxBody both ways (a bomb stops there: ErrBodyTooLarge).
func (cn *conn) readCoded(resp *Response, h *Head, maxBody int) error {
	var err error
	cn.coded, err = cn.readBody(cn.coded[:0], h, maxBody)
	resp.close = resp.close || h.untilClose()
	switch {
	case err != nil:
	case len(cn.coded) == 0: // no body (a 204) to decode
		resp.Body = resp.Body[:0]
	default:
		if h.BadEncoding {
			err = ErrContentEncoding
		} else if resp.Body, err = httpz.Inflate(resp.Body[:0], h.Encoding, cn.coded, maxBody); err == httpz.ErrTooLarge {
			err = ErrBodyTooLarge
		} else if err != nil {
			err = ErrContentEncoding
		}
	}
	if cap(cn.coded) > maxKept {
		cn.coded = nil
	}
	return err
}

// readHead reads up to the end of a head and returns it, with the empty
// line that ends it; it is valid until the next read. The end of the
// stream before its first byte is io.EOF (and cn.w is 0).
func (cn *conn) readHead() ([]byte, error) {
	if cn.r == cn.w {
		cn.r, cn.w = 0, 0
	}
	for {
		if n := headEnd(cn.buf[cn.r:cn.w]); n >= 0 {
			head := cn.buf[cn.r : cn.r+n]
			cn.r += n
			return head, nil
		}
		if err := cn.fill(); err != nil {
			if err == io.EOF && cn.r < cn.w {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// headEnd returns the length of the head that b starts with, with its
// empty line, or -1 when b does not hold all of it.
func headEnd(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		switch {
		case i < len(b) && b[i] == '\n':
			return i + 1
		case i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n':
			return i + 2
		}
	}
}

// fill reads more into buf, making room first (up to maxHead of unused
// bytes).
func (cn *conn) fill() error {
	if cn.w == len(cn.buf) {
		switch {
		case cn.r > 0:
			cn.w = copy(cn.buf, cn.buf[cn.r:cn.w])
			cn.r = 0
		case len(cn.buf) >= maxHead:
			return ErrMalformed // a head or line this long is not an answer
		default:
			nb := make([]byte, max(readBuf, 2*len(cn.buf)))
			cn.w = copy(nb, cn.buf[cn.r:cn.w])
			cn.r, cn.buf = 0, nb
		}
	}
	for {
		n, err := cn.nc.Read(cn.buf[cn.w:])
		cn.w += n
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine returns the next line without its end ("\r\n" or "\n").
func (cn *conn) readLine() ([]byte, error) {
	for {
		if i := bytes.IndexByte(cn.buf[cn.r:cn.w], '\n'); i >= 0 {
			line := cn.buf[cn.r : cn.r+i]
			cn.r += i + 1
			return bytes.TrimSuffix(line, []byte("\r")), nil
		}
		if err := cn.fill(); err != nil {
			return nil, eofIsUnexpected(err)
		}
	}
}

// readN appends the next n bytes to dst.
func (cn *conn) readN(dst []byte, n int) ([]byte, error) {
	k := min(n, cn.w-cn.r)
	dst = append(dst, cn.buf[cn.r:cn.r+k]...)
	cn.r += k
	if k == n {
		return dst, nil
	}
	start := len(dst)
	dst = grow(dst, n-k)
	_, err := io.ReadFull(cn.nc, dst[start:])
	return dst, eofIsUnexpected(err)
}

// grow returns dst extended by n bytes.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		nb := make([]byte, len(dst), len(dst)+n)
		copy(nb, dst)
		dst = nb
	}
	return dst[:len(dst)+n]
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readBody appends the body that h announces to dst, at most max bytes.
func (cn *conn) readBody(dst []byte, h *Head, max int) ([]byte, error) {
	switch {
	case !h.hasBody():
		return dst, nil
	case h.Chunked:
		return cn.readChunked(dst, max)
	case h.ContentLength >= 0:
		if h.ContentLength > int64(max) {
			return dst, ErrBodyTooLarge
		}
		return cn.readN(dst, int(h.ContentLength))
	}
	for { // until the end of the stream
		dst = append(dst, cn.buf[cn.r:cn.w]...)
		cn.r = cn.w
		if len(dst) > max {
			return dst, ErrBodyTooLarge
		}
		if err := cn.fill(); err == io.EOF {
			return dst, nil
		} else if err != nil {
			return dst, err
		}
	}
}

// readChunked appends a chunked body to dst, at most max bytes.
func (cn *conn) readChunked(dst []byte, max int) ([]byte, error) {
	for {
		line, err := cn.readLine()
		if err != nil {
			return dst, err
		}
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, ok := parseUint(bytes.TrimSpace(line), 16)
		if !ok {
			return dst, ErrMalformed
		}
		if n == 0 {
			break
		}
		if uint64(len(dst))+n > uint64(max) {
			return dst, ErrBodyTooLarge
		}
		if dst, err = cn.readN(dst, int(n)); err != nil {
			return dst, err
		}
		if line, err = cn.readLine(); err != nil {
			return dst, err
		} else if len(line) != 0 {
			return dst, ErrMalformed
		}
	}
	for { // the trailer, up to an empty line
		line, err := cn.readLine()
		if err != nil || len(line) == 0 {
			return dst, err
		}
	}
}

// closedError is the error of a request whose answer did not start: the
// connection ended or failed before its first byte. Post tries again on
// another connection (as fasthttp does), then returns it: it is
// ErrConnectionClosed and tells the cause.
type closedError struct{ cause error }

func (e *closedError) Error() string {
	if e.cause == io.EOF {
		return ErrConnectionClosed.Error()
	}
	return ErrConnectionClosed.Error() + ": " + e.cause.Error()
}

func (e *closedError) Is(target error) bool { return target == ErrConnectionClosed }
func (e *closedError) Unwrap() error        { return e.cause }
