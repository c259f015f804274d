package client_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/jetrpc/jetrpc/tlsconfig"
)

// tlsServers serves the demo methods with cfg over TCP and HTTP.
type tlsServers struct{ tcp, http string }

func startTLSServers(t *testing.T, cfg *tls.Config) tlsServers {
	t.Helper()
	opts := &netserver.Options{Logger: quiet, TLS: cfg}
	tcp := netserver.New(newEngine(t), opts)
	web := nethttp.New(newEngine(t), opts)
	var addrs [2]string
	for i, serve := range []func(net.Listener) error{tcp.Serve, web.Serve} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs[i] = ln.Addr().String()
		done := make(chan error, 1)
		go func() { done <- serve(ln) }()
		t.Cleanup(func() {
			select {
			case <-done:
			case <-time.After(testTimeout):
				t.Error("Serve did not return after Shutdown")
			}
		})
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		tcp.Shutdown(ctx)
		web.Shutdown(ctx)
	})
	return tlsServers{tcp: addrs[0], http: addrs[1]}
}

// tlsDialers dial each transport over TLS: an error is the dial's or, when
// the dial succeeded, the first call's.
var tlsDialers = []struct {
	name string
	dial func(ctx context.Context, s tlsServers, opts *client.Options) (*client.Client, error)
}{
	{"tcp-ndjson", dialTLSStream(frame.NDJSON)},
	{"tcp-header", dialTLSStream(frame.Header)},
	{"tcp-len32", dialTLSStream(frame.Len32)},
	{"https", func(_ context.Context, s tlsServers, opts *client.Options) (*client.Client, error) {
		return client.DialHTTP("https://"+s.http+"/", opts)
	}},
	{"wss", func(ctx context.Context, s tlsServers, opts *client.Options) (*client.Client, error) {
		return client.DialWebSocket(ctx, "wss://"+s.http+"/ws", opts)
	}},
}

func dialTLSStream(kind frame.Kind) func(context.Context, tlsServers, *client.Options) (*client.Client, error) {
	return func(ctx context.Context, s tlsServers, opts *client.Options) (*client.Client, error) {
		opts.Framing = kind
		return client.Dial(ctx, "tcp", s.tcp, opts)
	}
}

// subtract dials and calls subtract [42,23] on a new client, closed before
// it returns.
func subtract(t *testing.T, dial func(context.Context, tlsServers, *client.Options) (*client.Client, error),
	s tlsServers, cfg *tls.Config) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := dial(ctx, s, testOptions(&client.Options{TLS: cfg}))
	if err != nil {
		return err
	}
	defer c.Close()
	var got int
	if err := c.Call(ctx, "subtract", []int{42, 23}, &got); err != nil {
		return err
	}
	if got != 19 {
		t.Errorf("subtract: %d", got)
	}
	return nil
}

// TestTLS: Options.TLS on every transport: a client trusting the CA is
// served (with a client certificate where one is required); one trusting
// the system's roots or another CA, a server certificate that expired, and
// a missing client certificate all fail.
func TestTLS(t *testing.T) {
	checkGoroutines(t)
	certs := testcert.New(t, "test CA")
	other := testcert.New(t, "other CA")
	mutual := certs.ServerConfig()
	mutual.ClientAuth, mutual.ClientCAs = tls.RequireAndVerifyClientCert, certs.Pool
	plain := startTLSServers(t, certs.ServerConfig())
	expired := startTLSServers(t, &tls.Config{Certificates: []tls.Certificate{certs.Expired.Cert}})
	mtls := startTLSServers(t, mutual)
	for _, d := range tlsDialers {
		t.Run(d.name, func(t *testing.T) {
			works := func(what string, s tlsServers, cfg *tls.Config) {
				t.Helper()
				if err := subtract(t, d.dial, s, cfg); err != nil {
					t.Errorf("%s: %v", what, err)
				}
			}
			fails := func(what string, s tlsServers, cfg *tls.Config, want string) {
				t.Helper()
				if err := subtract(t, d.dial, s, cfg); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want an error with %q", what, err, want)
				}
			}
			works("trusted", plain, certs.ClientConfig())
			works("mtls", mtls, certs.MutualClientConfig())
			fails("system roots", plain, &tls.Config{}, "certificate signed by unknown authority")
			fails("another CA", plain, other.ClientConfig(), "certificate signed by unknown authority")
			fails("expired", expired, certs.ClientConfig(), "certificate has expired")
			fails("mtls without a certificate", mtls, certs.ClientConfig(), "certificate required")
			if !strings.HasPrefix(d.name, "tcp") {
				return
			}
			// TCP without Options.TLS is plain: the server sees no hello.
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			c, err := d.dial(ctx, plain, testOptions(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Call(ctx, "subtract", []int{42, 23}, nil); !errors.Is(err, client.ErrClosed) {
				t.Errorf("a plain call to a TLS server: %v", err)
			}
		})
	}
}

// TestTLSReload: a client connection open when the server's certificate
// is reloaded goes on; a new one gets the new certificate.
func TestTLSReload(t *testing.T) {
	checkGoroutines(t)
	certs := testcert.New(t, "test CA")
	cur := certs.Issue(t, "reloaded", testcert.Template{CommonName: "first"})
	r, err := tlsconfig.New(tlsconfig.Options{CertFile: cur.CertFile, KeyFile: cur.KeyFile, CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := startTLSServers(t, r.Config())
	var seen atomic.Value // the common name of the server certificate last verified
	cfg := certs.ClientConfig()
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		seen.Store(cs.PeerCertificates[0].Subject.CommonName)
		return nil
	}
	for _, d := range tlsDialers {
		t.Run(d.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			certs.Issue(t, "reloaded", testcert.Template{CommonName: "before-" + d.name})
			if err := r.Reload(); err != nil {
				t.Fatal(err)
			}
			old, err := d.dial(ctx, s, testOptions(&client.Options{TLS: cfg, IdleTimeout: time.Second}))
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			call := func(c *client.Client, want string) {
				t.Helper()
				var got int
				if err := c.Call(ctx, "subtract", []int{42, 23}, &got); err != nil || got != 19 {
					t.Fatalf("subtract: %d, %v", got, err)
				}
				if cn := seen.Load(); want != "" && cn != want {
					t.Errorf("server certificate %v, want %s", cn, want)
				}
			}
			call(old, "before-"+d.name)
			certs.Issue(t, "reloaded", testcert.Template{CommonName: "after-" + d.name})
			if err := r.Reload(); err != nil {
				t.Fatal(err)
			}
			call(old, "") // same connection (HTTP: the keep-alive one)
			if cn := seen.Load(); cn != "before-"+d.name {
				t.Errorf("the open connection handshook again (%v)", cn)
			}
			c, err := d.dial(ctx, s, testOptions(&client.Options{TLS: cfg}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			call(c, "after-"+d.name)
		})
	}
}
