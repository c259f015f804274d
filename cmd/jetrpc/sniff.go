package main

// NOTE: what listens at an address, for the hints of call and gen (#30):
// "jetrpc call" pointed at the HTTP port with --tcp used to say only
// "connection lost: EOF", and --http pointed at the TCP port printed a
// fragment of a JSON-RPC error as an "invalid response status code". After
// such a failure, sniff sends one line that both kinds of server answer at
// once, an HTTP/1.0 request line: an HTTP server answers "HTTP/1.x ...", a
// jetrpc stream server (auto framing: a first byte that is not '{' means
// NDJSON) a JSON-RPC parse error.

import (
	"bytes"
	"net"
	"net/url"
	"time"
)

// sniffTimeout bounds the probe.
const sniffTimeout = time.Second

// Kinds of server sniff tells apart.
const (
	kindUnknown = ""
	kindHTTP    = "http"   // an HTTP server
	kindStream  = "stream" // a JSON-RPC server on a raw stream (TCP)
)

// sniff returns what kind of server listens at addr (host:port), or
// kindUnknown when it cannot tell within sniffTimeout.
func sniff(addr string) string {
	c, err := net.DialTimeout("tcp", addr, sniffTimeout)
	if err != nil {
		return kindUnknown
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(sniffTimeout))
	if _, err := c.Write([]byte("GET / HTTP/1.0\r\n\r\n")); err != nil {
		return kindUnknown
	}
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	return sniffAnswer(buf[:n])
}

// sniffAnswer classifies the first bytes of an answer.
func sniffAnswer(b []byte) string {
	t := bytes.TrimLeft(b, " \t\r\n")
	switch {
	case bytes.HasPrefix(b, []byte("HTTP/")):
		return kindHTTP
	case len(t) > 0 && (t[0] == '{' || t[0] == '['),
		bytes.HasPrefix(bytes.ToLower(b), []byte("content-length:")),
		len(b) >= 4 && b[0] == 0: // a 4-byte length prefix
		return kindStream
	}
	return kindUnknown
}

// urlHostPort is the host:port a URL dials (the scheme's default port when
// it has none).
func urlHostPort(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	if u.Port() != "" {
		return u.Host
	}
	port := map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[u.Scheme]
	return net.JoinHostPort(u.Hostname(), port)
}

// wrongTransport returns the hint for a failed call to target ("tcp",
// "http" or "ws") at addr (a TCP address or a URL), or "" when what
// listens there is what target expects, or cannot be told.
func wrongTransport(target, addr string) string {
	hp := addr
	if target != "tcp" {
		hp = urlHostPort(addr)
	}
	switch kind := sniff(hp); {
	case kind == kindHTTP && target == "tcp":
		return hp + ": this looks like an HTTP server; use --http " + hp + " (or --ws " + hp + ")"
	case kind == kindStream && target != "tcp":
		return hp + ": this looks like a raw TCP JSON-RPC server, not an HTTP one; use --tcp " + hp
	}
	return ""
}
