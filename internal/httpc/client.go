package httpc

// NOTE: the connection pool. slots holds a token per request in progress
// (MaxConns at most; a request waits up to MaxConnWait for one), so the
// connections open are at most MaxConns too: a request takes the most
// recently used idle connection or dials one. A connection goes back to
// idle after a complete answer that does not close it; the reaper (a timer,
// not a goroutine) closes the ones idle for IdleTimeout, oldest first.

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"time"
)

var (
	// ErrConnectionClosed: the connection ended or failed before the first
	// byte of the answer, again after the retries (a server that rejects a
	// client certificate does so); the error wraps it and tells the cause.
	ErrConnectionClosed = errors.New("httpc: the server closed the connection before the first byte of its answer")
	// ErrTimeout: the deadline passed before the answer was read.
	ErrTimeout = errors.New("httpc: timeout")
	// ErrBodyTooLarge: the answer's body is over Options.MaxBody.
	ErrBodyTooLarge = errors.New("httpc: response body over the limit")
	// ErrNoFreeConns: MaxConns requests were in progress for MaxConnWait.
	ErrNoFreeConns = errors.New("httpc: no free connection")
	// ErrClosed: the Client was closed.
	ErrClosed = errors.New("httpc: client closed")
	// ErrMalformed: the answer is not HTTP/1.x as this package reads it.
	ErrMalformed = errors.New("httpc: malformed response")
	// ErrContentEncoding: the answer's Content-Encoding is not gzip,
	// deflate or identity, or its body does not decode.
	ErrContentEncoding = errors.New("httpc: response body with an unknown or broken Content-Encoding")
)

const (
	// dialTimeout bounds dialing (and a TLS handshake) without a deadline,
	// as fasthttp's DefaultDialTimeout does.
	dialTimeout = 3 * time.Second
	// maxAttempts is how often a POST is sent when the server closes the
	// connection before answering (an idle keep-alive connection it
	// closed): fasthttp's DefaultMaxIdemponentCallAttempts.
	maxAttempts = 5
	// maxKept caps the buffers a connection keeps between requests.
	maxKept = 256 << 10
)

// Options configures a Client. Zero fields mean the defaults.
type Options struct {
	TLS         *tls.Config   // for https (nil: the system's roots)
	UserAgent   string        // the User-Agent header (empty: none)
	Header      string        // header lines sent on every request, each ending "\r\n"
	MaxConns    int           // connections at most (default 512)
	MaxConnWait time.Duration // how long a request waits for a free one (default 30s)
	IdleTimeout time.Duration // how long an idle connection is kept (default 10s)
	MaxBody     int           // the largest answer's body, also once inflated (default 4 MiB)
	// NoCompression: do not ask for gzip answers ("Accept-Encoding:
	// gzip" is sent unless Header names an Accept-Encoding of its own).
	NoCompression bool
}

// Client POSTs to one URL over a pool of keep-alive connections. It is safe
// for concurrent use.
type Client struct {
	addr    string      // host:port dialled
	tls     *tls.Config // nil: plain
	prefix  []byte      // the request line and the fixed headers
	wait    time.Duration
	idleFor time.Duration
	maxBody int
	slots   chan struct{}

	mu     sync.Mutex
	idle   []*conn // oldest first
	reaper *time.Timer
	reaps  bool // reaper is armed
	closed bool
}

// New returns a Client for url (http or https with a host); it dials
// nothing yet.
func New(u *neturl.URL, o Options) (*Client, error) {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("httpc: want an http or https URL with a host, got " + u.String())
	}
	c := &Client{
		addr:    hostPort(u),
		wait:    or(o.MaxConnWait, 30*time.Second),
		idleFor: or(o.IdleTimeout, 10*time.Second),
		maxBody: or(o.MaxBody, 4<<20),
		slots:   make(chan struct{}, or(o.MaxConns, 512)),
	}
	if u.Scheme == "https" {
		c.tls = tlsFor(o.TLS, u.Hostname())
	}
	b := append([]byte("POST "), requestURI(u)...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, u.Host...)
	b = append(b, "\r\n"...)
	if o.UserAgent != "" {
		b = append(append(append(b, "User-Agent: "...), o.UserAgent...), "\r\n"...)
	}
	b = appendBasicAuth(b, u)
	if !o.NoCompression && !hasHeader(o.Header, "accept-encoding") {
		b = append(b, "Accept-Encoding: gzip\r\n"...)
	}
	c.prefix = append(b, o.Header...)
	return c, nil
}

// hasHeader reports whether the header lines hdr name name (lower case).
func hasHeader(hdr, name string) bool {
	for l := range strings.SplitSeq(hdr, "\n") {
		if n, _, ok := strings.Cut(l, ":"); ok && strings.EqualFold(strings.TrimSpace(n), name) {
			return true
		}
	}
	return false
}

func or[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// hostPort is the address to dial for u: its host with the scheme's port
// when it names none.
func hostPort(u *neturl.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// requestURI is u's request target, sent as written ("/" for none).
func requestURI(u *neturl.URL) string {
	s := u.EscapedPath()
	if s == "" {
		s = "/"
	}
	if u.ForceQuery || u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// appendBasicAuth appends an Authorization header for u's user, if any.
func appendBasicAuth(b []byte, u *neturl.URL) []byte {
	if u.User == nil || u.User.Username() == "" {
		return b
	}
	pw, _ := u.User.Password()
	b = append(b, "Authorization: Basic "...)
	b = base64.StdEncoding.AppendEncode(b, []byte(u.User.Username()+":"+pw))
	return append(b, "\r\n"...)
}

// tlsFor returns cfg (a new one for nil) with ServerName set to host when
// it names none.
func tlsFor(cfg *tls.Config, host string) *tls.Config {
	if cfg == nil {
		return &tls.Config{ServerName: host}
	}
	if cfg.ServerName != "" {
		return cfg
	}
	cfg = cfg.Clone()
	cfg.ServerName = host
	return cfg
}

// A Response is an answer read by Post. Body keeps its capacity across
// uses; reuse a Response to read without allocating.
type Response struct {
	StatusCode int
	Body       []byte
	close      bool
}

// Post sends body with the extra header lines hdr ("Name: value\r\n" each,
// or nil) and reads the answer into resp, all by dl (zero: no deadline).
// When the server closes the connection before answering, the request is
// sent again on another, up to 5 times in all; then the error is
// ErrConnectionClosed. A deadline that passes is ErrTimeout.
func (c *Client) Post(hdr, body []byte, resp *Response, dl time.Time) error {
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
		err = cn.roundTrip(c, hdr, body, resp, dl)
		if err == nil {
			c.put(cn, resp.close)
			return nil
		}
		cn.nc.Close()
		var closed *closedError
		if !errors.As(err, &closed) && !(cn.reused && cn.writeFailed) {
			break
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// acquire takes a request slot, waiting up to MaxConnWait (and dl).
func (c *Client) acquire(dl time.Time) error {
	select {
	case c.slots <- struct{}{}:
		return nil
	default:
	}
	wait, err := c.wait, ErrNoFreeConns
	if !dl.IsZero() {
		if d := time.Until(dl); d < wait {
			wait, err = d, ErrTimeout
		}
	}
	if wait <= 0 {
		return err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-t.C:
		return err
	}
}

// get returns the most recently used idle connection, or dials one.
func (c *Client) get(dl time.Time) (*conn, error) {
	c.mu.Lock()
	for n := len(c.idle); n > 0; n = len(c.idle) {
		cn := c.idle[n-1]
		c.idle[n-1] = nil
		c.idle = c.idle[:n-1]
		if time.Since(cn.idleSince) < c.idleFor {
			c.mu.Unlock()
			return cn, nil
		}
		cn.nc.Close()
	}
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	nc, err := dial(c.addr, c.tls, dl)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc}, nil
}

// put makes cn idle, or closes it.
func (c *Client) put(cn *conn, closeIt bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if closeIt || c.closed {
		cn.nc.Close()
		return
	}
	cn.idleSince, cn.reused = time.Now(), true
	c.idle = append(c.idle, cn)
	if !c.reaps {
		c.reaps = true
		if c.reaper == nil {
			c.reaper = time.AfterFunc(c.idleFor, c.reap)
		} else {
			c.reaper.Reset(c.idleFor)
		}
	}
}

// reap closes the connections idle for IdleTimeout and rearms itself while
// others are idle.
func (c *Client) reap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	now, n := time.Now(), 0
	for _, cn := range c.idle {
		if now.Sub(cn.idleSince) < c.idleFor {
			break
		}
		cn.nc.Close()
		n++
	}
	m := copy(c.idle, c.idle[n:])
	clear(c.idle[m:])
	c.idle = c.idle[:m]
	c.reaps = m > 0
	if c.reaps {
		c.reaper.Reset(c.idleFor - now.Sub(c.idle[0].idleSince))
	}
}

// CloseIdleConnections closes the idle connections; the ones in use are
// closed when their requests end. Post fails with ErrClosed afterwards.
func (c *Client) CloseIdleConnections() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, cn := range c.idle {
		cn.nc.Close()
	}
	clear(c.idle)
	c.idle = nil
	if c.reaper != nil {
		c.reaper.Stop()
	}
}
