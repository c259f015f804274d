package netserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// TestOriginWSAndSSE: allowed, missing, foreign and null origins on
// WebSocket upgrades and event streams (and a plain POST), with a
// configured list and with the default policy.
func TestOriginWSAndSSE(t *testing.T) {
	list, err := guard.ParseOriginPolicy("https://app.example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*guard.OriginPolicy{list, nil} {
		_, wsURL := startWS(t, &Options{Guard: guard.New(&guard.Options{Origins: p})})
		host := strings.TrimSuffix(strings.TrimPrefix(wsURL, "ws://"), "/ws")
		f := func(origin string, want bool) {
			t.Helper()
			h := http.Header{}
			if origin != "" {
				h.Set("Origin", origin)
			}
			d := websocket.Dialer{HandshakeTimeout: testTimeout}
			c, resp, err := d.Dial(wsURL, h)
			if c != nil {
				c.Close()
			}
			switch {
			case want && err != nil:
				t.Errorf("policy %v: WS with Origin %q: %v", p, origin, err)
			case !want && (err == nil || resp == nil || resp.StatusCode != http.StatusForbidden):
				t.Errorf("policy %v: WS with Origin %q: %v, want 403", p, origin, err)
			}
			for _, accept := range []string{"text/event-stream", ""} {
				hs := []string{"Accept", accept}
				if origin != "" {
					hs = append(hs, "Origin", origin)
				}
				resp, body := httpDo(t, "http://"+host, wsSubtract, hs...)
				wantStatus := http.StatusOK
				if !want {
					wantStatus = http.StatusForbidden
				}
				if resp.StatusCode != wantStatus || want && !strings.Contains(body, `"result":19`) {
					t.Errorf("policy %v: POST (Accept %q) with Origin %q: %d %s, want %d", p, accept, origin, resp.StatusCode, body, wantStatus)
				}
			}
		}
		f("", true)
		f("http://"+host, true) // same host
		f("https://app.example.com", p != nil)
		f("https://evil.example", false)
		f("null", false)
	}
}
