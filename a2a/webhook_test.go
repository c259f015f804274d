package a2a_test

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
)

// hook is a webhook on a loopback port that counts what it gets; with
// redirect, it answers 307 to that URL.
func hook(t *testing.T, redirect string) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	ln := listen(t)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusTemporaryRedirect)
		}
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String(), &n
}

// publicDNS resolves every name to a public address: the first answer of
// a rebinding name.
func publicDNS(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

// sendWithHook runs a blocking send whose push config names url, and
// waits for the deliveries to be tried (2 attempts, 10 ms apart).
func sendWithHook(t *testing.T, base, url string) rpcResp {
	t.Helper()
	r := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"w","role":"user","parts":[{"kind":"text","text":"x"}]},`+
		`"configuration":{"blocking":true,"pushNotificationConfig":{"url":"`+url+`","token":"t"}}}`)
	time.Sleep(300 * time.Millisecond)
	return r
}

// TestWebhookGuardConfig: by default a push config whose URL is not
// http(s), or names or resolves (localhost) to a loopback, private,
// link-local, multicast or unspecified address, is -32602, in a send's
// configuration and in a set; a public address passes; with
// AllowPrivateWebhooks, a loopback one does.
func TestWebhookGuardConfig(t *testing.T) {
	base, _ := serveWith(t, nil, nil)
	r := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"g","role":"user","parts":[{"kind":"text","text":"x"}]}}`)
	id := taskID(t, sseEvent{data: `{"result":` + string(r.Result) + `}`})
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost:9/x", "http://10.1.2.3/x", "http://192.168.0.1/x",
		"http://172.16.0.1/", "http://[::1]:9/", "http://169.254.169.254/latest/meta-data", "http://[fe80::1]/", "http://224.0.0.1/",
		"http://0.0.0.0:9/", "http://[::]/", "http://[::ffff:127.0.0.1]/", "http://[fd00::1]/", "ftp://example.com/x", "file:///etc/passwd",
		"//example.com/x"} {
		set := call(t, base, "", "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"`+u+`"}}`)
		if set.Error == nil || set.Error.Code != -32602 {
			t.Errorf("set %s: %+v %s", u, set.Error, set.Result)
		}
		send := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"h","role":"user","parts":[{"kind":"text","text":"x"}]},`+
			`"configuration":{"pushNotificationConfig":{"url":"`+u+`"}}}`)
		if send.Error == nil || send.Error.Code != -32602 {
			t.Errorf("send %s: %+v %s", u, send.Error, send.Result)
		}
	}
	if set := call(t, base, "", "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"https://93.184.216.34/hook"}}`); set.Error != nil {
		t.Fatalf("a public address: %+v", set.Error)
	}
	open, _ := serveWith(t, &a2a.Options{AllowPrivateWebhooks: true}, nil)
	r = call(t, open, "", "message/send", `{"message":{"kind":"message","messageId":"g","role":"user","parts":[{"kind":"text","text":"x"}]}}`)
	id = taskID(t, sseEvent{data: `{"result":` + string(r.Result) + `}`})
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost:9/x", "http://10.1.2.3/x"} {
		if set := call(t, open, "", "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"`+u+`"}}`); set.Error != nil {
			t.Errorf("allowed %s: %+v", u, set.Error)
		}
	}
	if set := call(t, open, "", "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"ftp://example.com/x"}}`); set.Error == nil || set.Error.Code != -32602 {
		t.Errorf("ftp with private webhooks allowed: %+v", set.Error)
	}
}

// TestWebhookGuardRebinding: a name that resolved to a public address
// when the config was set (the test's DNS) and to 127.0.0.1 when the
// Pusher dials (localhost) gets nothing by default; with
// PusherOptions.AllowPrivate it gets the notifications.
func TestWebhookGuardRebinding(t *testing.T) {
	for _, allow := range []bool{false, true} {
		addr, got := hook(t, "")
		_, port, _ := net.SplitHostPort(addr)
		base, s := serveWith(t, &a2a.Options{Push: a2a.NewPusher(&a2a.PusherOptions{MaxAttempts: 2, Backoff: 10 * time.Millisecond,
			AllowPrivate: allow})}, nil)
		a2a.SetLookup(s, publicDNS)
		if r := sendWithHook(t, base, "http://localhost:"+port+"/hook"); r.Error != nil || !strings.Contains(string(r.Result), `"completed"`) {
			t.Fatalf("allow %v: %+v %s", allow, r.Error, r.Result)
		}
		if n := got.Load(); (n > 0) != allow {
			t.Fatalf("allow %v: the webhook on 127.0.0.1 got %d requests", allow, n)
		}
	}
}

// TestWebhookGuardRedirect: a webhook the guard lets through (the test's
// stand-in for a public one) that redirects to 127.0.0.1 leads nowhere by
// default; with PusherOptions.AllowPrivate the redirect is followed.
func TestWebhookGuardRedirect(t *testing.T) {
	for _, allow := range []bool{false, true} {
		private, got := hook(t, "")
		public, asked := hook(t, "http://"+private+"/internal")
		_, port, _ := net.SplitHostPort(public)
		exempt := netip.MustParseAddrPort(public)
		p := a2a.NewPusherExempt(&a2a.PusherOptions{MaxAttempts: 2, Backoff: 10 * time.Millisecond, AllowPrivate: allow},
			func(ap netip.AddrPort) bool { return ap.Port() == exempt.Port() && ap.Addr().IsLoopback() })
		base, s := serveWith(t, &a2a.Options{Push: p}, nil)
		a2a.SetLookup(s, publicDNS)
		if r := sendWithHook(t, base, "http://localhost:"+port+"/hook"); r.Error != nil {
			t.Fatalf("allow %v: %+v", allow, r.Error)
		}
		if asked.Load() == 0 {
			t.Fatalf("allow %v: the public webhook got nothing", allow)
		}
		if n := got.Load(); (n > 0) != allow {
			t.Fatalf("allow %v: the redirect's target on 127.0.0.1 got %d requests", allow, n)
		}
	}
}
