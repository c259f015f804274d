package mcpbench

// NOTE: a minimal HTTP/1.1 client over one keep-alive connection: the load
// generator writes each request with one Write and parses the answer's
// status, the few headers it needs and a Content-Length or chunked body.
// net/http's client cost more CPU per call than the fastest server under
// test, on the same cores; this one is the same for every server.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// wire is one HTTP/1.1 connection to host.
type wire struct {
	host, path string
	conn       net.Conn
	br         *bufio.Reader
	req        []byte
	body       bodyReader
}

// response is what the load generator reads of an HTTP response. body is
// valid until the next request on the wire.
type response struct {
	status  int
	ctype   string
	session string
	body    io.Reader
}

// newWire parses url (http://HOST/PATH).
func newWire(url string) (*wire, error) {
	rest, ok := strings.CutPrefix(url, "http://")
	host, path, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		return nil, errors.New("url " + url + ": want http://HOST/PATH")
	}
	return &wire{host: host, path: "/" + path}, nil
}

func (w *wire) close() {
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

// post sends body with the headers hdr (each "Name: value\r\n") and reads
// the response's head. The previous response's body must have been read.
func (w *wire) post(hdr, body []byte) (response, error) {
	if w.conn == nil {
		c, err := net.DialTimeout("tcp", w.host, 10*time.Second)
		if err != nil {
			return response{}, err
		}
		w.conn, w.br = c, bufio.NewReaderSize(c, 16<<10)
	}
	b := append(w.req[:0], "POST "...)
	b = append(b, w.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, w.host...)
	b = append(b, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"...)
	b = append(b, hdr...)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	w.req = append(b, body...)
	w.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := w.conn.Write(w.req); err != nil {
		w.close()
		return response{}, err
	}
	res, err := w.readHead()
	if err != nil {
		w.close()
	}
	return res, err
}

// readHead reads the status line and headers and sets up the body reader.
func (w *wire) readHead() (response, error) {
	var res response
	line, err := w.br.ReadSlice('\n')
	if err != nil {
		return res, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return res, errors.New("bad status line " + string(line))
	}
	res.status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return res, err
	}
	w.body = bodyReader{br: w.br, length: -1}
	chunked := false
	for {
		line, err := w.br.ReadSlice('\n')
		if err != nil {
			return res, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, val, _ := bytes.Cut(line, []byte(":"))
		val = bytes.TrimSpace(val)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				return res, err
			}
			w.body.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(val, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Content-Type")):
			res.ctype = string(val)
		case bytes.EqualFold(name, []byte("Mcp-Session-Id")):
			res.session = string(val)
		}
	}
	switch {
	case chunked:
		w.body.length, w.body.chunked = 0, true
	case w.body.length < 0:
		return res, errors.New("a response without Content-Length nor chunked encoding")
	}
	res.body = &w.body
	return res, nil
}

// bodyReader reads a Content-Length or chunked body.
type bodyReader struct {
	br      *bufio.Reader
	length  int64 // left in the body or in the current chunk
	chunked bool
	done    bool
}

func (r *bodyReader) Read(p []byte) (int, error) {
	for r.length == 0 {
		if !r.chunked || r.done {
			return 0, io.EOF
		}
		if err := r.nextChunk(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > r.length {
		p = p[:r.length]
	}
	n, err := r.br.Read(p)
	r.length -= int64(n)
	if err == io.EOF && r.length > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// nextChunk reads a chunk's size line (after the CRLF that ends the
// previous chunk); the last chunk's trailer is read to its blank line.
func (r *bodyReader) nextChunk() error {
	line, err := r.br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if line = bytes.TrimRight(line, "\r\n"); len(line) == 0 { // the CRLF after a chunk's data
		if line, err = r.br.ReadSlice('\n'); err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
	}
	size, _, _ := bytes.Cut(line, []byte(";"))
	n, err := strconv.ParseInt(string(size), 16, 64)
	if err != nil {
		return errors.New("bad chunk size " + string(line))
	}
	if n > 0 {
		r.length = n
		return nil
	}
	r.done = true
	for { // trailer
		line, err := r.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return nil
		}
	}
}
