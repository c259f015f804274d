package httpc

// NOTE: an answer read as a stream (PostStream). After the head, a
// bodyReader hands out the body as it arrives, from the connection's
// buffer and then straight from the connection, whatever its framing
// (Content-Length, chunked, until the connection ends); a coded body goes
// through a pooled httpz.Reader. The connection goes back to the pool only
// when the body was read to its end; otherwise it is closed.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz"
)

// PostStream sends body as Post does (the same retries while no answer has
// started) and hands fn the answer's status and its body as it arrives,
// inflated when the server coded it, without a size limit of its own: fn
// reads what it wants of it. A body cut off (the connection ends before
// the last chunk or the Content-Length, a gzip stream without its trailer)
// reads io.ErrUnexpectedEOF after what came. ctx bounds it all: its
// deadline is the connection's, and once ctx is done the connection's
// reads and writes fail at once (an error wrapping os.ErrDeadlineExceeded).
// PostStream returns fn's error, or its own.
func (c *Client) PostStream(ctx context.Context, hdr, body []byte, fn func(status int, body io.Reader) error) error {
	dl, _ := ctx.Deadline()
	if err := c.acquire(dl); err != nil {
		return err
	}
	defer func() { <-c.slots }()
	var err error
	for range maxAttempts {
		var cn *conn
		if cn, err = c.get(dl); err != nil {
			break
		}
		stop := context.AfterFunc(ctx, func() { cn.nc.SetDeadline(time.Unix(1, 0)) })
		var started bool
		started, err = cn.stream(c, hdr, body, dl, fn)
		if stop() && err == nil && cn.reusable {
			cn.reusable = false
			c.put(cn, false)
			return nil
		}
		cn.nc.Close()
		var closed *closedError
		if started || !errors.As(err, &closed) && !(cn.reused && cn.writeFailed) {
			break
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil {
		return ErrTimeout
	}
	return err
}

// stream writes the request and hands the answer to fn; started says fn
// was called.
func (cn *conn) stream(c *Client, hdr, body []byte, dl time.Time, fn func(int, io.Reader) error) (started bool, err error) {
	cn.deadline = true // the AfterFunc may set one
	if err := cn.nc.SetDeadline(dl); err != nil {
		return false, err
	}
	cn.reusable = false
	if err := cn.writeRequest(c, hdr, body); err != nil {
		return false, err
	}
	h, err := cn.readAnswerHead()
	if err != nil {
		return false, err
	}
	br := bodyReader{cn: cn, left: h.ContentLength, chunked: h.Chunked, end: !h.hasBody()}
	switch {
	case h.Chunked:
		br.left = 0 // the first chunk's size is read first
	case h.ContentLength < 0:
		br.left = -1 // until the connection ends
	}
	if br.left == 0 && !br.chunked {
		br.end = true
	}
	var r io.Reader = &br
	var zr *httpz.Reader
	if h.hasBody() && (h.Encoding != httpz.Identity || h.BadEncoding) {
		if h.BadEncoding {
			return false, ErrContentEncoding
		}
		if zr, err = httpz.NewReader(h.Encoding, &br); err != nil {
			if err == httpz.ErrMalformed {
				err = ErrContentEncoding
			}
			return false, err
		}
		defer zr.Release()
		r = zr
	}
	err = fn(h.Status, r)
	cn.reusable = err == nil && br.end && !h.Close && br.left >= 0
	return true, err
}

// writeRequest writes the request (roundTrip's first half).
func (cn *conn) writeRequest(c *Client, hdr, body []byte) error {
	b := append(cn.out[:0], c.prefix...)
	b = append(b, hdr...)
	b = append(b, "Content-Length: "...)
	b = appendInt(b, len(body))
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	_, err := cn.nc.Write(b)
	if cap(b) > maxKept {
		b = nil
	}
	cn.out = b[:0]
	cn.writeFailed = err != nil
	return err
}

func appendInt(b []byte, n int) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// readAnswerHead reads the head of the final answer (after any 1xx ones).
func (cn *conn) readAnswerHead() (Head, error) {
	for first := true; ; first = false {
		head, err := cn.readHead()
		if err != nil {
			if first && cn.w == 0 && !errors.Is(err, os.ErrDeadlineExceeded) {
				err = &closedError{err}
			}
			return Head{}, err
		}
		var h Head
		if err := h.parse(head); err != nil {
			return Head{}, err
		}
		if h.Status >= 200 || h.Status == 101 {
			h.raw = nil // in cn.buf: not valid past the next read
			return h, nil
		}
	}
}

// bodyReader reads a body as it arrives.
type bodyReader struct {
	cn      *conn
	left    int64 // bytes left of the body, or of the chunk (-1: until the connection ends)
	chunked bool
	inChunk bool // a chunk was started (its CRLF is due after it)
	end     bool // the body was read to its end
	err     error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.end {
		return 0, io.EOF
	}
	if b.chunked && b.left == 0 {
		if err := b.nextChunk(); err != nil {
			b.err = err
			return 0, err
		}
		if b.end {
			return 0, io.EOF
		}
	}
	if b.left >= 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.cn.read(p)
	if b.left >= 0 {
		b.left -= int64(n)
		if !b.chunked && b.left == 0 {
			b.end = true
		}
	}
	switch {
	case err == io.EOF && b.left < 0:
		b.end = true
		return n, io.EOF
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// nextChunk reads the end of the chunk read, then the next chunk's size
// line; a last chunk is read with its trailer and ends the body.
func (b *bodyReader) nextChunk() error {
	cn := b.cn
	if b.inChunk {
		if line, err := cn.readLine(); err != nil {
			return err
		} else if len(line) != 0 {
			return ErrMalformed
		}
	}
	line, err := cn.readLine()
	if err != nil {
		return err
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	n, ok := parseUint(bytes.TrimSpace(line), 16)
	if !ok {
		return ErrMalformed
	}
	b.left, b.inChunk = int64(n), true
	if n > 0 {
		return nil
	}
	for { // the trailer, up to an empty line
		line, err := cn.readLine()
		if err != nil {
			return err
		}
		if len(line) == 0 {
			b.end = true
			return nil
		}
	}
}

// read reads into p what the buffer holds, or else from the connection.
func (cn *conn) read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if cn.r < cn.w {
		n := copy(p, cn.buf[cn.r:cn.w])
		cn.r += n
		return n, nil
	}
	if len(p) < readBuf && len(cn.buf) > 0 { // a short read: through the buffer
		cn.r, cn.w = 0, 0
		if err := cn.fill(); err != nil {
			return 0, err
		}
		n := copy(p, cn.buf[cn.r:cn.w])
		cn.r += n
		return n, nil
	}
	for range maxEmptyReads {
		n, err := cn.nc.Read(p)
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

const maxEmptyReads = 100
