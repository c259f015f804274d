package netserver

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// TestAuthMTLS: a verified client certificate is the identity on every
// transport (TCP without the authenticating call, HTTPS, WSS); without one
// (the server only asks for it) the other credentials still work.
func TestAuthMTLS(t *testing.T) {
	certs := testcert.New(t, "auth-ca")
	serverTLS := &tls.Config{Certificates: []tls.Certificate{certs.Server.Cert},
		ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: certs.Pool}
	withCert := &tls.Config{RootCAs: certs.Pool, Certificates: []tls.Certificate{certs.Client.Cert}}
	noCert := &tls.Config{RootCAs: certs.Pool}
	opts := &Options{Guard: guard.New(&guard.Options{Auth: testAuth(t)}), TLS: serverTLS}

	t.Run("tcp", func(t *testing.T) {
		ts := startServer(t, opts, authSetup(t)...)
		dial := func(cfg *tls.Config) *client {
			nc, err := tls.DialWithDialer(&net.Dialer{Timeout: testTimeout}, "tcp", ts.addr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { nc.Close() })
			return &client{t: t, kind: frame.NDJSON, w: nc, nc: nc, fr: frame.NewReader(nc, frame.NDJSON, 0)}
		}
		expectResult(t, dial(withCert).call(callWhoami), "2", `"client/mtls"`)
		c := dial(noCert)
		expectResult(t, c.call(authCall(aliceToken)), "1", `{"name":"alice","scheme":"bearer"}`)
		expectResult(t, c.call(callWhoami), "2", `"alice/bearer"`)
		c = dial(noCert)
		expectError(t, c.call(callWhoami), "2", -32006)
		c.expectClosed()
	})

	t.Run("https-wss", func(t *testing.T) {
		_, wsURL := startWS(t, opts, authSetup(t)...)
		host := strings.TrimSuffix(strings.TrimPrefix(wsURL, "ws://"), "/ws")
		post := func(cfg *tls.Config, authz string) (int, string) {
			tr := &http.Transport{TLSClientConfig: cfg}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodPost, "https://"+host, strings.NewReader(callWhoami))
			if authz != "" {
				req.Header.Set("Authorization", authz)
			}
			resp, err := (&http.Client{Transport: tr, Timeout: testTimeout}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := post(withCert, ""); code != 200 || !strings.Contains(body, `"client/mtls"`) {
			t.Errorf("HTTPS with a certificate: %d %s", code, body)
		}
		if code, body := post(noCert, "Bearer "+bobToken); code != 200 || !strings.Contains(body, `"bob/bearer"`) {
			t.Errorf("HTTPS with a token: %d %s", code, body)
		}
		if code, body := post(noCert, ""); code != http.StatusUnauthorized {
			t.Errorf("HTTPS with nothing: %d %s", code, body)
		}
		d := websocket.Dialer{TLSClientConfig: withCert, HandshakeTimeout: testTimeout}
		c, _, err := d.Dial("wss://"+host+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(testTimeout))
		if err := c.WriteMessage(websocket.TextMessage, []byte(callWhoami)); err != nil {
			t.Fatal(err)
		}
		if _, b, err := c.ReadMessage(); err != nil || !strings.Contains(string(b), `"client/mtls"`) {
			t.Errorf("WSS: %s %v", b, err)
		}
		d.TLSClientConfig = noCert
		if _, resp, err := d.Dial("wss://"+host+"/ws", nil); err == nil || resp == nil || resp.StatusCode != 401 {
			t.Errorf("WSS without a credential: %v %v", resp, err)
		}
	})
}
