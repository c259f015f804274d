package mcpbench

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The protocol revisions the benchmark runs.
const (
	V20251125 = "2025-11-25" // initialize, then a session (Mcp-Session-Id)
	V20260728 = "2026-07-28" // stateless: _meta and Mcp-Method/Mcp-Name on every request
)

// Conn is one MCP client of the load generator: on 2025-11-25 a session
// opened by Open, on 2026-07-28 none. It is not safe for concurrent use.
type Conn struct {
	URL     string
	Version string
	w       *wire
	hdr     []byte
	session string
	id      int
	body    []byte
	resp    []byte
}

// Open starts the client's session on 2025-11-25 (initialize, then
// notifications/initialized); on 2026-07-28 there is nothing to open.
func (c *Conn) Open() error {
	if c.Version == V20260728 {
		return nil
	}
	c.session = ""
	c.id++
	c.body = append(c.body[:0], `{"jsonrpc":"2.0","id":`...)
	c.body = strconv.AppendInt(c.body, int64(c.id), 10)
	c.body = append(c.body, `,"method":"initialize","params":{"protocolVersion":"`...)
	c.body = append(c.body, c.Version...)
	c.body = append(c.body, `","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1"}}}`...)
	res, err := c.post("initialize", "")
	if err != nil {
		return err
	}
	c.session = res.session
	if err := c.readResult(res, `"protocolVersion":"`+c.Version+`"`); err != nil {
		return err
	}
	if c.session == "" {
		return errors.New("initialize: no Mcp-Session-Id")
	}
	c.body = append(c.body[:0], `{"jsonrpc":"2.0","method":"notifications/initialized"}`...)
	res, err = c.post("notifications/initialized", "")
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, res.body); err != nil {
		c.Close()
		return err
	}
	if res.status != http.StatusAccepted {
		return errors.New("notifications/initialized: HTTP " + strconv.Itoa(res.status))
	}
	return nil
}

// Echo calls the tool echo with text and checks that the result holds it.
func (c *Conn) Echo(text string) error {
	c.call("echo", `{"text":"`+text+`"}`, false)
	res, err := c.post("tools/call", "echo")
	if err != nil {
		return err
	}
	return c.readResult(res, `"text":"`+text+`"`)
}

// Countdown calls the tool countdown with n and a progress token, and
// returns the time from the request to the first progress notification.
// The response must be an event stream that carries one, then the result
// "done".
func (c *Conn) Countdown(n int) (time.Duration, error) {
	c.call("countdown", `{"n":`+strconv.Itoa(n)+`}`, true)
	start := time.Now()
	res, err := c.post("tools/call", "countdown")
	if err != nil {
		return 0, err
	}
	if !strings.HasPrefix(res.ctype, "text/event-stream") {
		c.Close()
		return 0, errors.New("countdown: no event stream: HTTP " + strconv.Itoa(res.status) + " " + res.ctype)
	}
	var first time.Duration
	br := bufio.NewReader(res.body)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			c.Close()
			return 0, errors.New("countdown: the stream ended before the result: " + err.Error())
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		switch {
		case !ok:
		case first == 0 && bytes.Contains(data, []byte(`"notifications/progress"`)):
			first = time.Since(start)
		case bytes.Contains(data, []byte(`"result"`)):
			if !bytes.Contains(data, []byte(`"text":"done"`)) {
				c.Close()
				return 0, errors.New("countdown: result " + string(data))
			}
			if first == 0 {
				c.Close()
				return 0, errors.New("countdown: no progress before the result")
			}
			if _, err := io.Copy(io.Discard, br); err != nil {
				c.Close()
				return 0, err
			}
			return first, nil
		case bytes.Contains(data, []byte(`"error"`)):
			c.Close()
			return 0, errors.New("countdown: " + string(data))
		}
	}
}

// call writes a tools/call request of tool with args to c.body; on
// 2026-07-28 params carry the _meta that revision asks of every request.
func (c *Conn) call(tool, args string, progress bool) {
	c.id++
	b := append(c.body[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(c.id), 10)
	b = append(b, `,"method":"tools/call","params":{"name":"`...)
	b = append(b, tool...)
	b = append(b, `","arguments":`...)
	b = append(b, args...)
	sep := `,"_meta":{`
	if progress {
		b = append(b, sep+`"progressToken":"p`...)
		b = strconv.AppendInt(b, int64(c.id), 10)
		b = append(b, '"')
		sep = ","
	}
	if c.Version == V20260728 {
		b = append(b, sep+`"io.modelcontextprotocol/protocolVersion":"`...)
		b = append(b, c.Version...)
		b = append(b, `","io.modelcontextprotocol/clientCapabilities":{}`...)
		sep = ","
	}
	if sep == "," {
		b = append(b, '}')
	}
	c.body = append(b, "}}"...)
}

// post sends c.body with the headers of c's revision.
func (c *Conn) post(method, name string) (response, error) {
	if c.w == nil {
		w, err := newWire(c.URL)
		if err != nil {
			return response{}, err
		}
		c.w = w
	}
	h := c.hdr[:0]
	if method != "initialize" {
		h = append(append(append(h, "Mcp-Protocol-Version: "...), c.Version...), "\r\n"...)
	}
	if c.session != "" {
		h = append(append(append(h, "Mcp-Session-Id: "...), c.session...), "\r\n"...)
	}
	if c.Version == V20260728 {
		h = append(append(append(h, "Mcp-Method: "...), method...), "\r\n"...)
		if name != "" {
			h = append(append(append(h, "Mcp-Name: "...), name...), "\r\n"...)
		}
	}
	c.hdr = h
	return c.w.post(h, c.body)
}

// Close closes the connection.
func (c *Conn) Close() {
	if c.w != nil {
		c.w.close()
	}
}

// readResult reads a response (JSON or an event stream) and checks that it
// is 200 with a result holding want.
func (c *Conn) readResult(res response, want string) error {
	var err error
	c.resp, err = readAll(res.body, c.resp[:0])
	switch {
	case err != nil:
		c.Close()
		return err
	case res.status != http.StatusOK:
		return errors.New("HTTP " + strconv.Itoa(res.status) + ": " + string(c.resp))
	case !bytes.Contains(c.resp, []byte(`"result"`)) || !bytes.Contains(c.resp, []byte(want)):
		return errors.New("unexpected answer: " + string(c.resp))
	}
	return nil
}

// readAll appends r's bytes to b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
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
