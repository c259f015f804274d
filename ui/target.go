package ui

// NOTE: the connections to a target. A stream carries whole messages both
// ways: a TCP connection with a framing (NDJSON unless the URL says
// ?framing=header or len32), a WebSocket (one text message per message), or,
// for an HTTP target, POSTs whose answers are the stream's input. The
// relays (proxy.go) and the shared connection of the POSTs (mux.go) work on
// any of them.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
)

// stream is one connection to the target.
type stream interface {
	send(msg []byte) error // safe for concurrent use
	recv() ([]byte, error) // one reader; valid until the next recv
	close() error
}

// target is a parsed TARGET.
type target struct {
	url     string // as given
	scheme  string // http, https, ws, wss or tcp
	addr    string // host:port for tcp
	framing frame.Kind
	max     int
	write   time.Duration
	hc      *http.Client
}

func parseTarget(s string, max int, write time.Duration) (*target, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("target %s: %v", s, err)
	}
	t := &target{url: s, scheme: strings.ToLower(u.Scheme), addr: u.Host, framing: frame.NDJSON, max: max, write: write}
	if u.Host == "" {
		return nil, fmt.Errorf("target %s: want http(s)://, ws(s):// or tcp:// with a host", s)
	}
	switch t.scheme {
	case "http", "https":
		t.hc = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}}
	case "ws", "wss":
	case "tcp":
		if f := u.Query().Get("framing"); f != "" {
			if t.framing, err = frame.ParseKind(f); err != nil || t.framing == frame.Auto {
				return nil, fmt.Errorf("target %s: framing: want ndjson, header or len32", s)
			}
		}
		if _, _, err := net.SplitHostPort(u.Host); err != nil {
			return nil, fmt.Errorf("target %s: %v", s, err)
		}
	default:
		return nil, fmt.Errorf("target %s: want http(s)://, ws(s):// or tcp://", s)
	}
	return t, nil
}

// dial opens a stream to the target.
func (t *target) dial(ctx context.Context) (stream, error) {
	switch t.scheme {
	case "tcp":
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", t.addr)
		if err != nil {
			return nil, err
		}
		return &tcpStream{nc: nc, rd: frame.NewReader(nc, t.framing, t.max), kind: t.framing, write: t.write}, nil
	case "ws", "wss":
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}
		wc, resp, err := d.DialContext(ctx, t.url, nil)
		if err != nil {
			if resp != nil {
				err = fmt.Errorf("%w (HTTP status %d)", err, resp.StatusCode)
			}
			return nil, err
		}
		wc.SetReadLimit(int64(t.max))
		return &wsStream{wc: wc, write: t.write}, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &httpStream{t: t, ctx: ctx, cancel: cancel, in: make(chan []byte, 16)}, nil
}

// post sends one message to an HTTP target and returns its answer.
func (t *target) post(ctx context.Context, body []byte) (status int, ctype string, resp []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	r, err := t.hc.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer r.Body.Close()
	resp, err = io.ReadAll(io.LimitReader(r.Body, int64(t.max)+1))
	if err == nil && len(resp) > t.max {
		err = fmt.Errorf("answer over %d bytes", t.max)
	}
	return r.StatusCode, r.Header.Get("Content-Type"), resp, err
}

func (t *target) close() {
	if t.hc != nil {
		t.hc.CloseIdleConnections()
	}
}

// tcpStream is a framed TCP connection.
type tcpStream struct {
	nc    net.Conn
	rd    *frame.Reader
	kind  frame.Kind
	write time.Duration
	mu    sync.Mutex
	buf   []byte
}

func (s *tcpStream) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = frame.AppendFrame(s.buf[:0], s.kind, msg)
	s.nc.SetWriteDeadline(time.Now().Add(s.write))
	_, err := s.nc.Write(s.buf)
	return err
}

func (s *tcpStream) recv() ([]byte, error) {
	for {
		msg, err := s.rd.Next()
		var tl *frame.TooLargeError
		if errors.As(err, &tl) {
			continue // skipped by the reader; the stream goes on
		}
		return msg, err
	}
}

func (s *tcpStream) close() error { return s.nc.Close() }

// wsStream is a WebSocket connection.
type wsStream struct {
	wc    *websocket.Conn
	write time.Duration
	mu    sync.Mutex
}

func (s *wsStream) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wc.SetWriteDeadline(time.Now().Add(s.write))
	return s.wc.WriteMessage(websocket.TextMessage, msg)
}

func (s *wsStream) recv() ([]byte, error) {
	for {
		typ, msg, err := s.wc.ReadMessage()
		if err != nil || typ == websocket.TextMessage || typ == websocket.BinaryMessage {
			return msg, err
		}
	}
}

func (s *wsStream) close() error {
	s.wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
	return s.wc.Close()
}

// httpStream posts each message to an HTTP target; the answers, in the
// order they come, are its input. An answer that is not JSON-RPC (an HTTP
// error status) comes back as an error response.
type httpStream struct {
	t      *target
	ctx    context.Context
	cancel context.CancelFunc
	in     chan []byte
	wg     sync.WaitGroup
}

func (s *httpStream) send(msg []byte) error {
	if s.ctx.Err() != nil {
		return net.ErrClosed
	}
	msg = bytes.Clone(msg)
	s.wg.Go(func() {
		status, _, body, err := s.t.post(s.ctx, msg)
		switch {
		case err != nil:
			body = errorFor(msg, "target unreachable: "+err.Error())
		case status == http.StatusNoContent || status == http.StatusAccepted:
			return
		case status != http.StatusOK:
			body = errorFor(msg, fmt.Sprintf("HTTP status %d: %s", status, bytes.TrimSpace(body)))
		case len(bytes.TrimSpace(body)) == 0:
			return
		}
		select {
		case s.in <- body:
		case <-s.ctx.Done():
		}
	})
	return nil
}

func (s *httpStream) recv() ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.ctx.Done():
		return nil, io.EOF
	}
}

func (s *httpStream) close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}
