package netserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/tlsconfig"
)

// tlsPeer answers what TLSState says of the call's connection:
// {"tls":false} without TLS, else the version and the client
// certificate's common name ("" without one).
var tlsPeer = withMethod(dispatch.Method{Name: "tls_peer", Inline: true,
	Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		st := TLSState(ctx)
		if st == nil {
			return append(dst, `{"tls":false}`...), nil
		}
		peer := ""
		if len(st.PeerCertificates) > 0 {
			peer = st.PeerCertificates[0].Subject.CommonName
		}
		return fmt.Appendf(dst, `{"tls":true,"version":%q,"peer":%q,"verified":%d}`,
			tls.VersionName(st.Version), peer, len(st.VerifiedChains)), nil
	})})

const tlsPeerCall = `{"jsonrpc":"2.0","method":"tls_peer","id":1}`

// tlsClient is one connection of a transport under test.
type tlsClient interface {
	call(msg string) ([]byte, error) // one request, its response
	state() tls.ConnectionState
	close()
}

// tlsTransport dials a server of its kind over TLS; the handshake is done
// when dial returns.
type tlsTransport struct {
	name string
	http bool // served by an HTTPServer
	dial func(addr string, cfg *tls.Config) (tlsClient, error)
}

var tlsTransports = []tlsTransport{
	{"tcp-ndjson", false, dialStreamTLS(frame.NDJSON)},
	{"tcp-header", false, dialStreamTLS(frame.Header)},
	{"tcp-len32", false, dialStreamTLS(frame.Len32)},
	{"https", true, dialHTTPS(false)},
	{"sse", true, dialHTTPS(true)},
	{"wss", true, dialWSS},
}

// startTLS serves a demo engine with tls_peer over tr's transport with
// Options.TLS = cfg and returns its address.
func startTLS(t *testing.T, tr tlsTransport, cfg *tls.Config) string {
	t.Helper()
	opts := &Options{TLS: cfg}
	if tr.http {
		_, url := startWS(t, opts, tlsPeer)
		return strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/ws")
	}
	return startServer(t, opts, tlsPeer).addr
}

func tlsDial(addr string, cfg *tls.Config) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: testTimeout}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(testTimeout))
	return c, nil
}

type streamTLS struct {
	c    *tls.Conn
	kind frame.Kind
	fr   *frame.Reader
}

func dialStreamTLS(kind frame.Kind) func(string, *tls.Config) (tlsClient, error) {
	return func(addr string, cfg *tls.Config) (tlsClient, error) {
		c, err := tlsDial(addr, cfg)
		if err != nil {
			return nil, err
		}
		return &streamTLS{c: c, kind: kind, fr: frame.NewReader(c, kind, 0)}, nil
	}
}

func (s *streamTLS) call(msg string) ([]byte, error) {
	if _, err := s.c.Write(frame.AppendFrame(nil, s.kind, []byte(msg))); err != nil {
		return nil, err
	}
	b, err := s.fr.Next()
	return bytes.Clone(b), err
}

func (s *streamTLS) state() tls.ConnectionState { return s.c.ConnectionState() }
func (s *streamTLS) close()                     { s.c.Close() }

// httpsTLS posts requests on one keep-alive connection, by hand, so that
// the test knows it is the same connection.
type httpsTLS struct {
	c   *tls.Conn
	rd  *bufio.Reader
	sse bool
}

func dialHTTPS(sse bool) func(string, *tls.Config) (tlsClient, error) {
	return func(addr string, cfg *tls.Config) (tlsClient, error) {
		c, err := tlsDial(addr, cfg)
		if err != nil {
			return nil, err
		}
		return &httpsTLS{c: c, rd: bufio.NewReader(c), sse: sse}, nil
	}
}

func (h *httpsTLS) call(msg string) ([]byte, error) {
	accept := "application/json"
	if h.sse {
		accept = "text/event-stream"
	}
	req := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: " + accept +
		"\r\nContent-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg
	if _, err := io.WriteString(h.c, req); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(h.rd, nil)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP status %d: %s", resp.StatusCode, body)
	}
	if !h.sse {
		return body, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		return nil, fmt.Errorf("Content-Type %q, want text/event-stream", ct)
	}
	data, ok := strings.CutPrefix(strings.TrimSpace(string(body)), "data: ")
	if !ok || strings.Contains(data, "\n") {
		return nil, fmt.Errorf("want one event, got %q", body)
	}
	return []byte(data), nil
}

func (h *httpsTLS) state() tls.ConnectionState { return h.c.ConnectionState() }
func (h *httpsTLS) close()                     { h.c.Close() }

type wssTLS struct {
	wc *websocket.Conn
	tc *tls.Conn
}

func dialWSS(addr string, cfg *tls.Config) (tlsClient, error) {
	var tc *tls.Conn
	d := websocket.Dialer{
		HandshakeTimeout: testTimeout,
		NetDialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := tlsDial(addr, cfg)
			tc = c
			return c, err
		},
	}
	wc, resp, err := d.Dial("wss://"+addr+"/ws", nil)
	if err != nil {
		if tc != nil {
			tc.Close()
		}
		return nil, err
	}
	resp.Body.Close()
	return &wssTLS{wc: wc, tc: tc}, nil
}

func (w *wssTLS) call(msg string) ([]byte, error) {
	if err := w.wc.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		return nil, err
	}
	_, b, err := w.wc.ReadMessage()
	return b, err
}

func (w *wssTLS) state() tls.ConnectionState { return w.tc.ConnectionState() }
func (w *wssTLS) close()                     { w.wc.Close() }

// peerOf decodes tls_peer's result.
type peerOf struct {
	TLS      bool   `json:"tls"`
	Version  string `json:"version"`
	Peer     string `json:"peer"`
	Verified int    `json:"verified"`
}

func callPeer(t *testing.T, c tlsClient) peerOf {
	t.Helper()
	b, err := c.call(tlsPeerCall)
	if err != nil {
		t.Fatalf("tls_peer: %v", err)
	}
	var r struct {
		Result peerOf `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("tls_peer: %q: %v", b, err)
	}
	return r.Result
}

// TestTLS: on every transport, a client that trusts the CA is served and
// its handlers see the connection's TLS state; one that trusts another CA,
// a server certificate that expired, a client offering only TLS 1.1, a
// client without TLS, and when client certificates are required a missing
// one, one of another CA and an expired one, all fail.
func TestTLS(t *testing.T) {
	certs := testcert.New(t, "test CA")
	other := testcert.New(t, "other CA")
	mutual := certs.ServerConfig()
	mutual.ClientAuth, mutual.ClientCAs = tls.RequireAndVerifyClientCert, certs.Pool
	expired := &tls.Config{Certificates: []tls.Certificate{certs.Expired.Cert}}
	presenting := func(cert tls.Certificate) *tls.Config { // even one the server's CA list does not name
		c := certs.ClientConfig()
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
		return c
	}
	foreignClient := presenting(other.Client.Cert)
	expiredClient := presenting(certs.Issue(t, "old-client", testcert.Template{Client: true,
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour)}).Cert)
	tls11 := certs.ClientConfig()
	tls11.MinVersion, tls11.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
	tls12 := certs.ClientConfig()
	tls12.MaxVersion = tls.VersionTLS12
	mtls12 := certs.MutualClientConfig()
	mtls12.MaxVersion = tls.VersionTLS12

	for _, tr := range tlsTransports {
		t.Run(tr.name, func(t *testing.T) {
			works := func(t *testing.T, name, addr string, client *tls.Config, want peerOf) {
				t.Run(name, func(t *testing.T) {
					c, err := tr.dial(addr, client)
					if err != nil {
						t.Fatal(err)
					}
					defer c.close()
					if got := callPeer(t, c); got != want {
						t.Errorf("the handler saw %+v, want %+v", got, want)
					}
					b, err := c.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`)
					if err != nil || !bytes.Contains(b, []byte(`"result":19`)) {
						t.Errorf("subtract: %s, %v", b, err)
					}
					if cn := c.state().PeerCertificates[0].Subject.CommonName; cn != "server" {
						t.Errorf("the client saw the server certificate %q", cn)
					}
				})
			}
			fails := func(t *testing.T, name, addr string, client *tls.Config, want string) {
				t.Run(name, func(t *testing.T) {
					c, err := tr.dial(addr, client)
					if err == nil { // TLS 1.3: the server judges the client's certificate after the client's handshake
						_, err = c.call(tlsPeerCall)
						c.close()
					}
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("got %v, want an error with %q", err, want)
					}
				})
			}
			t.Run("server", func(t *testing.T) {
				addr := startTLS(t, tr, certs.ServerConfig())
				works(t, "handshake", addr, certs.ClientConfig(), peerOf{TLS: true, Version: "TLS 1.3"})
				works(t, "tls1.2", addr, tls12, peerOf{TLS: true, Version: "TLS 1.2"})
				fails(t, "wrong-ca", addr, other.ClientConfig(), "certificate signed by unknown authority")
				fails(t, "tls1.1", addr, tls11, "protocol version")
				plainClient(t, addr)
			})
			t.Run("expired-server", func(t *testing.T) {
				addr := startTLS(t, tr, expired)
				fails(t, "expired", addr, certs.ClientConfig(), "certificate has expired")
			})
			t.Run("mutual", func(t *testing.T) {
				addr := startTLS(t, tr, mutual)
				works(t, "mtls", addr, certs.MutualClientConfig(), peerOf{TLS: true, Version: "TLS 1.3", Peer: "client", Verified: 1})
				works(t, "mtls-tls1.2", addr, mtls12, peerOf{TLS: true, Version: "TLS 1.2", Peer: "client", Verified: 1})
				fails(t, "missing", addr, certs.ClientConfig(), "certificate required")
				fails(t, "wrong-ca", addr, foreignClient, "unknown certificate authority")
				fails(t, "expired", addr, expiredClient, "expired certificate")
			})
		})
	}
}

// plainClient checks that a client without TLS gets nothing served.
func plainClient(t *testing.T, addr string) {
	t.Run("plain-client", func(t *testing.T) {
		nc, err := net.DialTimeout("tcp", addr, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(testTimeout))
		io.WriteString(nc, tlsPeerCall+"\n")
		b, _ := io.ReadAll(nc)
		if bytes.Contains(b, []byte("jsonrpc")) {
			t.Errorf("a plain client got %q", b)
		}
	})
}

// TestTLSReload: on every transport, a connection open before the
// certificate files change keeps working, and new connections get the new
// certificate, both after Reload and after a handshake noticed the change.
func TestTLSReload(t *testing.T) {
	certs := testcert.New(t, "test CA")
	for _, tr := range tlsTransports {
		t.Run(tr.name, func(t *testing.T) {
			cur := certs.Issue(t, "reload-"+tr.name, testcert.Template{CommonName: "first"})
			reloads := make(chan error, 10)
			r, err := tlsconfig.New(tlsconfig.Options{CertFile: cur.CertFile, KeyFile: cur.KeyFile,
				ClientCAFile: certs.CAFile, CheckEvery: time.Millisecond, OnReload: func(err error) { reloads <- err }})
			if err != nil {
				t.Fatal(err)
			}
			addr := startTLS(t, tr, r.Config())
			dial := func(want string) tlsClient {
				t.Helper()
				c, err := tr.dial(addr, certs.MutualClientConfig())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.close)
				if got := c.state().PeerCertificates[0].Subject.CommonName; got != want {
					t.Errorf("server certificate %q, want %q", got, want)
				}
				if got := callPeer(t, c); got.Peer != "client" {
					t.Errorf("the handler saw %+v", got)
				}
				return c
			}
			old := dial("first")

			// Reload (what SIGHUP does in jetrpc serve).
			certs.Issue(t, "reload-"+tr.name, testcert.Template{CommonName: "second"})
			if err := r.Reload(); err != nil {
				t.Fatal(err)
			}
			second := dial("second")
			callPeer(t, old)

			// A handshake notices changed files.
			certs.Issue(t, "reload-"+tr.name, testcert.Template{CommonName: "third"})
			time.Sleep(5 * time.Millisecond) // CheckEvery
			var c tlsClient
			for deadline := time.Now().Add(testTimeout); ; time.Sleep(5 * time.Millisecond) {
				var err error
				if c, err = tr.dial(addr, certs.MutualClientConfig()); err != nil {
					t.Fatal(err)
				}
				if c.state().PeerCertificates[0].Subject.CommonName == "third" || time.Now().After(deadline) {
					break
				}
				c.close() // the check came in the middle of the rewrite
			}
			t.Cleanup(c.close)
			if got := c.state().PeerCertificates[0].Subject.CommonName; got != "third" {
				t.Fatalf("server certificate %q, want third", got)
			}
			select {
			case err := <-reloads:
				for err != nil && len(reloads) > 0 { // a check that saw the files half-written
					err = <-reloads
				}
				if err != nil {
					t.Errorf("OnReload: %v", err)
				}
			default:
				t.Error("OnReload was not called")
			}
			callPeer(t, c)
			callPeer(t, second)
			callPeer(t, old)

			// Bad files are refused; the certificate in use stays.
			if err := writeFile(cur.KeyFile, "not a key"); err != nil {
				t.Fatal(err)
			}
			if err := r.Reload(); err == nil {
				t.Error("Reload of a broken key file succeeded")
			}
			if got := r.Certificate().Leaf.Subject.CommonName; got != "third" {
				t.Errorf("in use after a failed reload: %q", got)
			}
			callPeer(t, old)
		})
	}
}

func writeFile(name, s string) error { return os.WriteFile(name, []byte(s), 0o600) }

// TestTLSHandshakeTimeout: a TCP client that opens a TLS connection and
// never says hello is closed after ReadTimeout.
func TestTLSHandshakeTimeout(t *testing.T) {
	certs := testcert.New(t, "test CA")
	ts := startServer(t, &Options{TLS: certs.ServerConfig(), ReadTimeout: 100 * time.Millisecond})
	nc, err := net.DialTimeout("tcp", ts.addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(testTimeout))
	start := time.Now()
	if _, err := nc.Read(make([]byte, 1)); err != io.EOF && !isReset(err) {
		t.Errorf("read: %v, want EOF", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %v", d)
	}
	waitFor(t, "the connection to go", func() bool { return ts.openConns() == 0 })
}

// TestTLSShutdownHandshake: Shutdown does not wait for a TLS handshake
// that has not begun.
func TestTLSShutdownHandshake(t *testing.T) {
	certs := testcert.New(t, "test CA")
	ts := startServer(t, &Options{TLS: certs.ServerConfig()})
	silent, err := net.DialTimeout("tcp", ts.addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	waitFor(t, "the connection to open", func() bool { return ts.openConns() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := ts.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown with a handshake pending: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
}

// TestTLSStdHandler: behind a net/http server with TLS, HTTPHandler's
// handlers see the request's TLS state, the client certificate included.
func TestTLSStdHandler(t *testing.T) {
	checkGoroutines(t)
	certs := testcert.New(t, "test CA")
	cfg := certs.ServerConfig()
	cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, certs.Pool
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: HTTPHandlerTest(newEngine(t, tlsPeer), &Options{Logger: quiet}), TLSConfig: cfg,
		ReadHeaderTimeout: testTimeout}
	served := make(chan error, 1)
	go func() { served <- hs.ServeTLS(ln, "", "") }()
	defer func() {
		hs.Close()
		if err := <-served; err != http.ErrServerClosed {
			t.Errorf("ServeTLS: %v", err)
		}
	}()
	tr := &http.Transport{TLSClientConfig: certs.MutualClientConfig()}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: testTimeout}
	resp, err := hc.Post("https://"+ln.Addr().String()+"/", "application/json", strings.NewReader(tlsPeerCall))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `"result":{"tls":true,"version":"TLS 1.3","peer":"client","verified":1}`; !strings.Contains(string(b), want) {
		t.Errorf("got %s, want %s", b, want)
	}
}
