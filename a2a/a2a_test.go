package a2a_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/valyala/fasthttp"
)

// serve starts an echo agent with short timings on a loopback port.
func serve(t *testing.T) string {
	t.Helper()
	base, _ := serveWith(t, &a2a.Options{AllowPrivateWebhooks: true,
		Push: a2a.NewPusher(&a2a.PusherOptions{Backoff: 10 * time.Millisecond, AllowPrivate: true})}, nil)
	return base
}

// serveWith starts an echo agent with opts and tm (nil: short timings)
// on a loopback port, until the test ends.
func serveWith(t *testing.T, opts *a2a.Options, tm *a2ademo.Timings) (string, *a2a.Server) {
	t.Helper()
	if tm == nil {
		tm = &a2ademo.Timings{Submitted: 20 * time.Millisecond, Working: 50 * time.Millisecond, Resubscribe: 400 * time.Millisecond}
	}
	s := a2a.New(a2ademo.Card(), a2ademo.Echo(tm), opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		switch string(ctx.Path()) {
		case "/a2a":
			s.ServeFastHTTP(ctx)
		case "/.well-known/agent-card.json":
			s.ServeCard(ctx)
		default:
			ctx.SetStatusCode(404)
		}
	}}
	go hs.Serve(ln)
	t.Cleanup(func() {
		s.Close()
		hs.Shutdown()
	})
	return "http://" + ln.Addr().String(), s
}

func post(t *testing.T, base, version, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/a2a", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b
}

type rpcResp struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

func call(t *testing.T, base, version, method, params string) rpcResp {
	t.Helper()
	_, b := post(t, base, version, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`)
	var r rpcResp
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("data: "))) // a streaming call's error is an SSE event
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, b)
	}
	return r
}

const msg03 = `{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}`
const msg10 = `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]},"configuration":{"returnImmediately":true}}`

func TestErrorCodes(t *testing.T) {
	base := serve(t)
	f := func(version, method, params string, code int, reason string) {
		t.Helper()
		r := call(t, base, version, method, params)
		if r.Error == nil || r.Error.Code != code {
			t.Fatalf("%s %s: want %d, got %+v %s", method, params, code, r.Error, r.Result)
		}
		if reason != "" && !bytes.Contains(r.Error.Data, []byte(`"reason":"`+reason+`"`)) {
			t.Fatalf("%s: error.data %s has no ErrorInfo %s", method, r.Error.Data, reason)
		}
	}
	// strict validation: -32602
	f("", "message/send", `{"message":{"kind":"message","role":"user","parts":[{"kind":"text","text":"x"}]}}`, -32602, "INVALID_PARAMS")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[]}}`, -32602, "INVALID_PARAMS")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user"}}`, -32602, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"robot","parts":[{"kind":"text","text":"x"}]}}`, -32602, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"nope"}]}}`, -32602, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text"}]}}`, -32602, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":7,"role":"user","parts":[{"kind":"text","text":"x"}]}}`, -32602, "")
	f("", "message/send", `{}`, -32602, "")
	f("1.0", "SendMessage", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","data":{}}]}}`, -32602, "")
	f("1.0", "SendMessage", `{"message":{"messageId":"m","role":"user","parts":[{"text":"a"}]}}`, -32602, "") // 0.3 role on 1.0
	f("", "tasks/get", `{"id":"x","historyLength":-1}`, -32602, "")
	f("1.0", "GetTask", `{"id":"x","historyLength":-1}`, -32602, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]},"configuration":{"historyLength":-2}}`, -32602, "")
	// the A2A codes
	f("", "tasks/get", `{"id":"nope"}`, -32001, "TASK_NOT_FOUND")
	f("1.0", "GetTask", `{"id":"nope"}`, -32001, "TASK_NOT_FOUND")
	f("", "tasks/cancel", `{"id":"nope"}`, -32001, "TASK_NOT_FOUND")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","taskId":"nope","parts":[{"kind":"text","text":"x"}]}}`, -32001, "")
	f("", "message/send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]},"configuration":{"acceptedOutputModes":["image/png"]}}`, -32005, "CONTENT_TYPE_NOT_SUPPORTED")
	f("", "agent/getAuthenticatedExtendedCard", `{}`, -32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED")
	f("", "tasks/pushNotificationConfig/set", `{"taskId":"nope","pushNotificationConfig":{"url":"http://127.0.0.1:1/x"}}`, -32001, "")
	f("", "tasks/pushNotificationConfig/set", `{"taskId":"nope","pushNotificationConfig":{"url":"not a url"}}`, -32602, "")
	// -32002: a completed task; -32004: 1.0 message to it
	r := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"m2","role":"user","parts":[{"kind":"text","text":"x"}]},"configuration":{"blocking":true}}`)
	var task struct {
		ID     string                 `json:"id"`
		Status struct{ State string } `json:"status"`
	}
	json.Unmarshal(r.Result, &task)
	if task.Status.State != "completed" {
		t.Fatalf("blocking send: %s", r.Result)
	}
	f("", "tasks/cancel", `{"id":"`+task.ID+`"}`, -32002, "TASK_NOT_CANCELABLE")
	f("1.0", "SendMessage", `{"message":{"messageId":"m3","taskId":"`+task.ID+`","role":"ROLE_USER","parts":[{"text":"x"}]}}`, -32004, "UNSUPPORTED_OPERATION")
	f("1.0", "SubscribeToTask", `{"id":"`+task.ID+`"}`, -32004, "")
	// -32009: an unsupported version; methods of the other wire are unknown
	f("2.0", "SendMessage", msg10, -32009, "VERSION_NOT_SUPPORTED")
	f("", "SendMessage", msg10, -32601, "")
	f("1.0", "message/send", msg03, -32601, "")
	// JSON-RPC envelope rules hold
	_, b := post(t, base, "", `{"jsonrpc":"2.0","id":1,"method":"tasks/get"`)
	if !bytes.Contains(b, []byte(`-32700`)) {
		t.Fatalf("truncated: %s", b)
	}
	_, b = post(t, base, "", `{"jsonrpc":"1.0","id":1,"method":"tasks/get"}`)
	if !bytes.Contains(b, []byte(`-32600`)) {
		t.Fatalf("jsonrpc 1.0: %s", b)
	}
}

func TestErrorCodeTable(t *testing.T) {
	for _, c := range []struct {
		code   int
		reason string
	}{{-32001, "TASK_NOT_FOUND"}, {-32002, "TASK_NOT_CANCELABLE"}, {-32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{-32004, "UNSUPPORTED_OPERATION"}, {-32005, "CONTENT_TYPE_NOT_SUPPORTED"}, {-32006, "INVALID_AGENT_RESPONSE"},
		{-32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"}, {-32008, "EXTENSION_SUPPORT_REQUIRED"}, {-32009, "VERSION_NOT_SUPPORTED"}} {
		e := a2a.Error(encode.Code(c.code), "", nil)
		if int(e.Code) != c.code || !bytes.Contains(e.Data, []byte(`"reason":"`+c.reason+`"`)) || e.Message == "" {
			t.Errorf("%d: %+v %s", c.code, e, e.Data)
		}
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestNotificationsUnanswered: a message without an id is a notification
// (JSON-RPC 2.0 §4.1: "The Server MUST NOT reply to a Notification"), on
// /a2a as everywhere: 204 with no body, whatever its method or params. An
// invalid Request without an id is answered, with id null (§5).
func TestNotificationsUnanswered(t *testing.T) {
	base := serve(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"message/ssend","params":{}}`,
		`{"jsonrpc":"2.0","method":"message/send","params":{"":"not_a_dict"}}`,
	} {
		resp, b := post(t, base, "", body)
		if resp.StatusCode != 204 || len(b) != 0 {
			t.Errorf("%s: %d %s, want 204 and no body", body, resp.StatusCode, b)
		}
	}
	resp, b := post(t, base, "", `{"jsonrpc":"2.0","params":{}}`)
	var r rpcResp
	if err := json.Unmarshal(b, &r); err != nil || resp.StatusCode != 200 || r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "null" {
		t.Errorf("missing method: %d %s, want -32600 with id null", resp.StatusCode, b)
	}
}
