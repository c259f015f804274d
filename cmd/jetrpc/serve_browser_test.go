package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBinaryBrowser: the Host check is on by default (localhost and IP
// literals), --allow-host adds names or turns it off, and --allow-origin
// drives CORS: an allowed origin's preflight is 204 with the CORS headers,
// another origin 403.
func TestBinaryBrowser(t *testing.T) {
	call := `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}`
	do := func(url, method, host string, header map[string]string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(call))
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, string(b)
	}
	for _, c := range []struct {
		args             []string
		host             string
		status           int
		origin, preflite string
	}{
		{nil, "evil.example", 403, "", ""},
		{nil, "localhost", 200, "", ""},
		{[]string{"--allow-host", "rpc.example"}, "rpc.example:443", 200, "", ""},
		{[]string{"--allow-host", "rpc.example"}, "evil.example", 403, "", ""},
		{[]string{"--allow-host", "*"}, "evil.example", 200, "", ""},
		{[]string{"--allow-origin", "http://app.example"}, "127.0.0.1", 200, "http://app.example", "204"},
		{[]string{"--allow-origin", "http://app.example"}, "127.0.0.1", 403, "http://evil.example", "403"},
	} {
		p := startBinary(t, nil, nil, append([]string{"serve", "--tcp", "", "--http", "127.0.0.1:0"}, c.args...)...)
		url := "http://" + p.stderr.listening(t, "http")["http"] + "/"
		h := map[string]string{}
		if c.origin != "" {
			h["Origin"] = c.origin
		}
		status, got, body := do(url, http.MethodPost, c.host, h)
		if status != c.status {
			t.Errorf("%v Host %s Origin %q: %d %q, want %d", c.args, c.host, c.origin, status, body, c.status)
		}
		if status == 403 && c.origin == "" && !strings.Contains(body, "invalid host specified") {
			t.Errorf("%v Host %s: body %q", c.args, c.host, body)
		}
		if c.preflite != "" {
			h["Access-Control-Request-Method"] = "POST"
			h["Access-Control-Request-Headers"] = "content-type,mcp-session-id"
			status, got, _ = do(url, http.MethodOptions, c.host, h)
			allowed := got.Get("Access-Control-Allow-Origin") == c.origin
			if want := c.preflite == "204"; (status == 204) != want || allowed != want {
				t.Errorf("%v preflight from %s: %d, Access-Control-Allow-Origin %q", c.args, c.origin, status, got.Get("Access-Control-Allow-Origin"))
			}
		}
	}
}
