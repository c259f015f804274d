package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway"
)

// TestProxyFlags: the flags and --config FILE are read as documented, and
// bad ones get a message naming the problem.
func TestProxyFlags(t *testing.T) {
	parse := func(args ...string) (*proxyConfig, string, error) {
		var stderr strings.Builder
		cfg, err := parseProxy(args, &stderr)
		return cfg, stderr.String(), err
	}
	cfg, _, err := parse("--upstream", "http://a:1/,ws://b:2/ws", "--upstream", "tcp://c:3", "--route", "debug_*=ipc:///tmp/x.ipc",
		"--route", "admin_=", "--idempotent", "eth_get*, eth_chainId", "--hedge-after", "30ms", "--http", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.upstreams, " ") != "http://a:1/ ws://b:2/ws tcp://c:3" || len(cfg.routes) != 2 ||
		cfg.routes[0].match != "debug_*" || cfg.routes[0].urls[0] != "ipc:///tmp/x.ipc" || cfg.routes[1].urls != nil ||
		strings.Join(cfg.idempotent, " ") != "eth_get* eth_chainId" || cfg.hedgeAfter != 30*time.Millisecond ||
		cfg.timeout != 30*time.Second || cfg.serve.http != "127.0.0.1:0" {
		t.Errorf("config %+v", cfg)
	}

	dir := t.TempDir()
	conf := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(conf, []byte("upstream:\n  - tcp://a:1\n  - http://b:2\nroute: [\"eth_getLogs=tcp://c:3\"]\nidempotent: eth_*\nhedge-after: 10ms\ntimeout: 5s\ntcp: \"\"\n"), 0o600)
	cfg, _, err = parse("--config", conf, "--timeout", "7s")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.upstreams, " ") != "tcp://a:1 http://b:2" || len(cfg.routes) != 1 || cfg.routes[0].match != "eth_getLogs" ||
		cfg.idempotent[0] != "eth_*" || cfg.hedgeAfter != 10*time.Millisecond || cfg.timeout != 7*time.Second || cfg.serve.tcp != "" {
		t.Errorf("config from %s: %+v", conf, cfg)
	}

	bad := func(want string, args ...string) {
		t.Helper()
		_, stderr, err := parse(args...)
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("%q: error %v, stderr %q; want %q", args, err, stderr, want)
		}
	}
	bad("--upstream: no upstream given")
	bad(`upstream "ftp://x": scheme must be http, https, ws, wss, tcp or ipc`, "--upstream", "ftp://x")
	bad(`upstream "tcp://": want tcp://HOST:PORT`, "--upstream", "tcp://")
	bad("want PREFIX=URL[,URL...]", "--upstream", "tcp://a:1", "--route", "eth_")
	bad("--hedge-after -1s: must not be negative", "--upstream", "tcp://a:1", "--hedge-after", "-1s")
	bad("--probe-every 0: must be above 0", "--upstream", "tcp://a:1", "--probe-every", "0")
	bad(`--method-timeout "eth_call=0s": want a positive duration`, "--upstream", "tcp://a:1", "--method-timeout", "eth_call=0s")
	bad(`--method-cost "eth_getLogs=x"`, "--upstream", "tcp://a:1", "--method-cost", "eth_getLogs=x")
	bad("--tcp", "--upstream", "tcp://a:1", "--tcp", "nonsense")
	bad(`--route-rate "eth_getLogs=0": want N[/BURST]: N a positive number`, "--upstream", "tcp://a:1", "--route-rate", "eth_getLogs=0")
	bad(`--route-rate "eth_getLogs=5/x": want N[/BURST]: BURST a whole number`, "--upstream", "tcp://a:1", "--route-rate", "eth_getLogs=5/x")
	bad(`--route-rate "eth_getLogs": want NAME=VALUE`, "--upstream", "tcp://a:1", "--route-rate", "eth_getLogs")
	bad(`--route-cost "eth_getLogs=0": want a whole number of at least 1`, "--upstream", "tcp://a:1", "--route-cost", "eth_getLogs=0")
	bad("--route-cost eth_getLogs: the route has no --route-rate", "--upstream", "tcp://a:1", "--route-cost", "eth_getLogs=5")
	bad("--route-rate eth_call: no --route covers eth_call and there is no --upstream", "--route", "debug_*=tcp://a:1", "--route-rate", "eth_call=5")
	os.WriteFile(conf, []byte("upstreams: tcp://a:1\n"), 0o600)
	bad(`unknown key "upstreams" (keys are the flags' names)`, "--config", conf)
	os.WriteFile(conf, []byte("upstream: [[tcp://a:1]]\n"), 0o600)
	bad("upstream: want a value or a list of values", "--config", conf)
	bad("no such file", "--config", filepath.Join(dir, "missing.yaml"))
}

// TestRouteLimits: --route-rate and --route-cost (also from --config)
// reach their routes; a PREFIX no --route names gets a route to the group
// its methods went to.
func TestRouteLimits(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "proxy.yaml")
	os.WriteFile(conf, []byte("route-rate: [\"debug_*=2.5/7\"]\nroute-cost: debug_*=3\n"), 0o600)
	var stderr strings.Builder
	cfg, err := parseProxy([]string{"--upstream", "tcp://a:1", "--route", "eth_=tcp://b:2", "--route", "debug_*=tcp://c:3",
		"--route-rate", "eth_getLogs=10", "--route-rate", "eth_=100/200", "--route-rate", "net_version=1", "--config", conf}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	def, eth, debug := &gateway.Group{Name: "default"}, &gateway.Group{Name: "eth"}, &gateway.Group{Name: "debug"}
	got := cfg.limitRoutes([]gateway.Route{{Match: "eth_", Group: eth}, {Match: "debug_*", Group: debug}}, def)
	want := []gateway.Route{{Match: "eth_", Group: eth, Rate: 100, Burst: 200}, {Match: "debug_*", Group: debug, Rate: 2.5, Burst: 7, Cost: 3},
		{Match: "eth_getLogs", Group: eth, Rate: 10}, {Match: "net_version", Group: def, Rate: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routes\n got %+v\nwant %+v", got, want)
	}
}

// TestBinaryProxyRouteRate: --route-rate and --route-cost bound a route's
// calls for all clients together: over them -32005, other methods pass.
func TestBinaryProxyRouteRate(t *testing.T) {
	up := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "")
	ua := up.stderr.listening(t, "tcp")
	p := startBinary(t, nil, nil, "proxy", "--upstream", "tcp://"+ua["tcp"], "--tcp", "127.0.0.1:0", "--http", "", "--probe", "",
		"--route-rate", "get_data=0.01/5", "--route-cost", "get_data=2")
	a := p.stderr.listening(t, "tcp")
	c1, c2 := dialLines(t, a["tcp"]), dialLines(t, a["tcp"])
	data := `{"jsonrpc":"2.0","id":1,"method":"get_data"}`
	for i, step := range []struct {
		c        *lineConn
		in, want string
	}{
		{c1, data, `{"jsonrpc":"2.0","id":1,"result":["hello",5]}`},
		{c2, data, `{"jsonrpc":"2.0","id":1,"result":["hello",5]}`}, // 2 + 2 of the burst of 5
		{c1, data, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Limit exceeded"}}`},
		{c2, `{"jsonrpc":"2.0","id":2,"method":"subtract","params":[3,1]}`, `{"jsonrpc":"2.0","id":2,"result":2}`},
	} {
		if got := step.c.call(step.in); got != step.want {
			t.Errorf("step %d: %s\n got %s\nwant %s", i, step.in, got, step.want)
		}
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Errorf("proxy exit %d", code)
	}
	up.cmd.Process.Signal(syscall.SIGTERM)
	if code := up.exit(t); code != 0 {
		t.Errorf("upstream exit %d", code)
	}
}

// TestBinaryProxy: jetrpc proxy in front of a jetrpc serve prints serve's
// listening lines, forwards over TCP and HTTP, answers /readyz from its
// upstreams' health, and exits 0 on SIGTERM.
func TestBinaryProxy(t *testing.T) {
	up := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	ua := up.stderr.listening(t, "tcp", "http")
	p := startBinary(t, nil, nil, "proxy", "--upstream", "tcp://"+ua["tcp"]+",http://"+ua["http"]+"/",
		"--route", "admin_=", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--probe-every", "50ms")
	addrs := p.stderr.listening(t, "tcp", "http", "admin")
	streamVectorsProxy(t, addrs["tcp"])
	post := func(body, want string) {
		t.Helper()
		resp, err := http.Post("http://"+addrs["http"]+"/", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Errorf("%s\n got %s\nwant %s", body, b, want)
		}
	}
	post(`{"jsonrpc":"2.0","id":"\u00e9","method":"subtract","params":[42,23]}`, `{"jsonrpc":"2.0","id":"\u00e9","result":19}`)
	post(`[{"jsonrpc":"2.0","id":1,"method":"get_data"},{"jsonrpc":"2.0","id":2,"method":"admin_x"}]`,
		`[{"jsonrpc":"2.0","id":1,"result":["hello",5]},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}]`)
	h := newTestHTTP(t)
	h.await(t, "http://"+addrs["http"]+"/readyz", http.StatusOK)
	// --method-timeout and --method-cost, with serve's --rate-limit.
	p2 := startBinary(t, nil, nil, "proxy", "--upstream", "tcp://"+ua["tcp"], "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--method-timeout", "sleep=100ms", "--method-cost", "get_data=3", "--rate-limit", "0.01", "--rate-burst", "4")
	a2 := p2.stderr.listening(t, "tcp", "http")
	c2 := dialLines(t, a2["tcp"])
	for _, step := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"sleep","params":[3000]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Request timed out","data":"no upstream answered within 100ms"}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"get_data"}`, `{"jsonrpc":"2.0","id":2,"result":["hello",5]}`}, // 1 + 3 = the burst
		{`{"jsonrpc":"2.0","id":3,"method":"get_data"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32005,"message":"Limit exceeded"}}`},
	} {
		if got := c2.call(step.in); got != step.want {
			t.Errorf("%s\n got %s\nwant %s", step.in, got, step.want)
		}
	}
	p2.cmd.Process.Signal(syscall.SIGTERM)
	if code := p2.exit(t); code != 0 {
		t.Errorf("second proxy exit %d", code)
	}
	h.await(t, "http://"+addrs["admin"]+"/metrics", http.StatusOK)
	if _, body := h.get(t, "http://"+addrs["admin"]+"/metrics"); !strings.Contains(body, `jetrpc_gateway_route_calls_total{group="default",route="*"}`) {
		t.Errorf("no gateway metrics:\n%s", body)
	}
	up.cmd.Process.Signal(syscall.SIGTERM)
	if code := up.exit(t); code != 0 {
		t.Errorf("upstream exit %d", code)
	}
	h.await(t, "http://"+addrs["http"]+"/readyz", http.StatusServiceUnavailable)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Errorf("proxy exit %d", code)
	}
}

// streamVectorsProxy sends a call over the proxy's TCP listener.
func streamVectorsProxy(t *testing.T, addr string) {
	t.Helper()
	c := dialLines(t, addr)
	if got := c.call(`{"jsonrpc":"2.0","id":12345678901234567890,"method":"subtract","params":[1,2]}`); got != `{"jsonrpc":"2.0","id":12345678901234567890,"result":-1}` {
		t.Errorf("over TCP: %s", got)
	}
}
