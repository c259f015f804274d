package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/stretchr/testify/require"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// TestMCPHAProxy runs deploy/haproxy.cfg (Debian's haproxy; skipped when
// it is not installed) in front of two jetrpc serve --mcp replicas, r1
// and r2 (r3 is down), sharing a JetStream store: every request of a
// session goes to the replica named by its id, and once that replica is
// killed, to the other, which adopts the session.
func TestMCPHAProxy(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		t.Skip("haproxy is not installed (deploy/rolling-restart.sh installs it)")
	}
	natsURL := natstest.Start(t)
	keyFile := filepath.Join(t.TempDir(), "mcp.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("00112233445566778899aabbccddeeff"), 0o600))
	r1, url1 := mcpReplica(t, natsURL, keyFile, "r1")
	_, url2 := mcpReplica(t, natsURL, keyFile, "r2")
	host := func(u string) string { return strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp") }
	lb, stats := freeAddr(t), freeAddr(t)
	cmd := exec.Command("haproxy", "-db", "-f", "../../deploy/haproxy.cfg")
	cmd.Env = append(os.Environ(), "JETRPC_LB_HTTP="+lb, "JETRPC_LB_TCP="+freeAddr(t), "JETRPC_LB_STATS="+stats,
		"JETRPC_R1_HTTP="+host(url1), "JETRPC_R2_HTTP="+host(url2), "JETRPC_R3_HTTP=127.0.0.1:1",
		"JETRPC_R1_TCP=127.0.0.1:1", "JETRPC_R2_TCP=127.0.0.1:1", "JETRPC_R3_TCP=127.0.0.1:1",
		"JETRPC_R1_HTTP_PORT=1", "JETRPC_R2_HTTP_PORT=1", "JETRPC_R3_HTTP_PORT=1", "JETRPC_CHECK_INTER=100ms")
	out := new(syncBuffer)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", out.String())
		}
	})
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(sid, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+lb+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, "", err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
	}
	// Open sessions until one is r1's (initialize is balanced). On a
	// loaded machine (CI runs the other packages' tests beside this one)
	// the replicas and the store can take seconds to answer the first ones.
	var sid string
	var tries []string // what each attempt got, for the failure message
	deadline := time.Now().Add(30 * time.Second)
	for !strings.HasPrefix(sid, "r1.") {
		require.True(t, time.Now().Before(deadline), "no session of r1 through haproxy; attempts: %q; haproxy: %s", tries, out.String())
		code, id, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		tries = append(tries, strconv.Itoa(code)+" "+id+" "+body[:min(len(body), 80)])
		if code == 200 {
			sid = id
		} else {
			time.Sleep(50 * time.Millisecond) // haproxy is starting
		}
	}
	// The session's requests all go to r1 (HAProxy's own count of them:
	// r2 would serve them too, by adopting the session).
	r1Before, r2Before := served(t, stats, "r1"), served(t, stats, "r2")
	for i := range 10 {
		code, _, body := post(sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		require.Equal(t, 200, code, "request %d: %s", i, body)
	}
	require.Equal(t, r1Before+10, served(t, stats, "r1"))
	require.Equal(t, r2Before, served(t, stats, "r2"))
	require.NoError(t, r1.cmd.Process.Kill())
	<-r1.done
	r1.done <- nil
	// Through haproxy, r2 adopts it once r1 is gone.
	deadline = time.Now().Add(10 * time.Second)
	for {
		code, _, body := post(sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"moved"}}}`)
		if code == 200 {
			require.Contains(t, body, "moved")
			break
		}
		require.True(t, time.Now().Before(deadline), "no answer after r1 died: %d %s", code, body)
		time.Sleep(50 * time.Millisecond)
	}
}

// served returns the requests HAProxy sent to server of backend
// jetrpc_mcp (stot in the stats CSV).
func served(t *testing.T, stats, server string) int {
	t.Helper()
	res, err := http.Get("http://" + stats + "/stats;csv")
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for line := range strings.Lines(string(b)) {
		if f := strings.Split(line, ","); len(f) > 7 && f[0] == "jetrpc_mcp" && f[1] == server {
			n, err := strconv.Atoi(f[7])
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no jetrpc_mcp/%s in the stats:\n%s", server, b)
	return 0
}
