package load_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// TestTLS: with Config.TLS every transport dials over TLS and every call
// is answered; a client certificate reaches a server that requires one; a
// server whose certificate the run does not trust fails the run at once.
func TestTLS(t *testing.T) {
	certs := testcert.New(t, "test CA")
	cfg := certs.ServerConfig()
	cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, certs.Pool
	opts := &netserver.Options{TLS: cfg, Logger: slog.New(slog.DiscardHandler)} // the refused handshakes are logged
	tcpSrv, httpSrv := netserver.New(newEngine(t), opts), nethttp.New(newEngine(t), opts)
	tcpLn, httpLn := listen(t), listen(t)
	go tcpSrv.Serve(tcpLn)
	go httpSrv.Serve(httpLn)
	t.Cleanup(func() { shutdown(t, tcpSrv.Shutdown); shutdown(t, httpSrv.Shutdown) })
	tcp, http := tcpLn.Addr().String(), httpLn.Addr().String()

	all := mix(t, "all")
	client := certs.MutualClientConfig()
	for _, c := range []struct {
		name string
		cfg  load.Config
	}{
		{"tcp/ndjson", load.Config{Addr: tcp, Conns: 2, Pipeline: 8}},
		{"tcp/len32", load.Config{Addr: tcp, Framing: frame.Len32, Conns: 2, Pipeline: 8}},
		{"http/hostclient", load.Config{Addr: http, Transport: load.HTTP, Conns: 2}},
		{"http/pipelined", load.Config{Addr: http, Transport: load.HTTP, Conns: 2, Pipeline: 4}},
		{"wss", load.Config{Addr: http, Transport: load.WS, Conns: 2, Pipeline: 8}},
		{"wss/url", load.Config{Addr: "wss://" + http + "/ws", Transport: load.WS, Conns: 1, Pipeline: 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Count, cfg.Requests, cfg.TLS = 500, all, client
			res, err := load.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := res.Counts; n.Sent != 500 || n.OK != 400 || n.Notifications != 100 || n.Failed() != 0 {
				t.Errorf("counts %+v, want 400 calls and 100 notifications, all OK", n)
			}
		})
	}
	for _, tr := range []string{load.TCP, load.WS} {
		_, err := load.Run(context.Background(), load.Config{Addr: map[string]string{load.TCP: tcp, load.WS: http}[tr],
			Transport: tr, Count: 10, Requests: all, TLS: testcert.New(t, "other CA").ClientConfig()})
		if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			t.Errorf("%s with an untrusted server: %v", tr, err)
		}
	}
	if _, err := load.Run(context.Background(), load.Config{Addr: "wss://" + http + "/ws", Transport: load.WS,
		Count: 10, Requests: all}); err == nil {
		t.Error("a wss:// URL without Config.TLS was dialled")
	}
}
