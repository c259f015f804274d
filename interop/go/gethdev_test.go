package interop

// NOTE: a real go-ethereum dev node (geth --dev) for the gateway's tests.
// startGethDev runs the binary that build-geth.sh built (GETH_BIN, or its
// default cache directory), on free loopback ports, and reads its HTTP and
// WebSocket endpoints from its log. In dev mode with --dev.period 0 (the
// default here) geth seals a block as soon as a transaction or a
// withdrawal arrives; mine seals blocks on demand that way, through the
// dev_addWithdrawal method. geth's simulated beacon marks finalized the
// last multiple of 32 at or below the head, so mining to 32 makes block
// 32 final.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// gethDev is one running geth --dev.
type gethDev struct {
	HTTP string // http://127.0.0.1:PORT
	WS   string // ws://127.0.0.1:PORT
	c    *client.Client
	cmd  *exec.Cmd
	log  syncBuffer
	eof  chan struct{}
}

// gethBin returns the geth binary of build-geth.sh: $GETH_BIN, or the one
// in its default cache directory. Outside CI (CI unset) the test is
// skipped when there is none; in CI it fails.
func gethBin(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("GETH_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("GETH_BIN: %v", err)
		}
		return bin
	}
	// The version go.mod pins, as build-geth.sh reads it.
	v, _ := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/ethereum/go-ethereum").Output()
	version := strings.TrimSpace(string(v))
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err == nil && version != "" {
		bin := filepath.Join(strings.TrimSpace(string(out)), "..", "jetrpc-geth", version, "geth")
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	msg := "no geth binary: run interop/go/build-geth.sh (it builds geth " + version + " from the Go module proxy once, in a few minutes) or set GETH_BIN"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

var gethEndpoint = regexp.MustCompile(`(HTTP server started|WebSocket enabled).*(?:endpoint|url)=(\S+)`)

// startGethDev runs geth --dev with HTTP and WebSocket on free loopback
// ports (APIs eth, net, web3, dev) and an in-memory chain, stopped when t
// ends. Extra args go last (e.g. --dev.period 1).
func startGethDev(t testing.TB, args ...string) *gethDev {
	t.Helper()
	bin := gethBin(t)
	g := &gethDev{eof: make(chan struct{})}
	dir := t.TempDir()
	g.cmd = exec.Command(bin, append([]string{"--dev", "--datadir", dir, "--ipcdisable",
		"--http", "--http.addr", "127.0.0.1", "--http.port", "0", "--http.api", "eth,net,web3,dev",
		"--ws", "--ws.addr", "127.0.0.1", "--ws.port", "0", "--ws.api", "eth,net,web3",
		"--authrpc.port", "0", "--port", "0", "--nodiscover", "--maxpeers", "0", "--verbosity", "3"}, args...)...)
	stderr, err := g.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan [2]string, 4)
	go func() {
		defer close(g.eof)
		defer close(found)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			g.log.WriteString(line + "\n")
			if m := gethEndpoint.FindStringSubmatch(line); m != nil {
				select {
				case found <- [2]string{m[1], strings.Trim(m[2], `"`)}:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() { g.stop(t) })
	timeout := time.After(60 * time.Second)
	for g.HTTP == "" || g.WS == "" {
		select {
		case f, ok := <-found:
			if !ok {
				t.Fatalf("geth --dev ended before it served HTTP; its log:\n%s", g.log.String())
			}
			if f[0] == "HTTP server started" {
				g.HTTP = "http://" + strings.TrimPrefix(f[1], "http://")
			} else {
				g.WS = f[1]
			}
		case <-timeout:
			t.Fatalf("geth --dev served no HTTP and WebSocket within 60 s; its log:\n%s", g.log.String())
		}
	}
	g.c, err = client.DialHTTP(g.HTTP, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.c.Close() })
	return g
}

func (g *gethDev) stop(t testing.TB) {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.eof:
	case <-time.After(30 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.eof
		t.Errorf("geth --dev still running 30 s after SIGTERM, killed")
	}
	_ = g.cmd.Wait()
	if t.Failed() {
		t.Logf("geth --dev log:\n%s", g.log.String())
	}
}

// call calls method on the node (params raw JSON) and appends the raw
// result to dst: a cache.CallFunc.
func (g *gethDev) call(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	return g.c.CallRaw(ctx, dst, method, params)
}

// must calls method and returns its raw result, failing t on an error.
func (g *gethDev) must(t testing.TB, method, params string) []byte {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := g.call(c, nil, method, []byte(params))
	if err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return res
}

// head returns the number of the latest block.
func (g *gethDev) head(t testing.TB) uint64 {
	t.Helper()
	return hexQuantity(t, g.must(t, "eth_blockNumber", "[]"))
}

// mine seals blocks until the head is at least n, one withdrawal each.
func (g *gethDev) mine(t testing.TB, n uint64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; ; i++ {
		h := g.head(t)
		if h >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mine: the head is %d, not %d, after 60 s", h, n)
		}
		g.must(t, "dev_addWithdrawal", `[{"index":"0x`+strconv.FormatUint(h+uint64(i)*1000, 16)+
			`","validatorIndex":"0x1","address":"0x00000000000000000000000000000000000000aa","amount":"0x1"}]`)
		for end := time.Now().Add(5 * time.Second); g.head(t) == h && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// hexQuantity reads a JSON string "0x..." as a number.
func hexQuantity(t testing.TB, raw []byte) uint64 {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !strings.HasPrefix(s, "0x") {
		t.Fatalf("not a hex quantity: %s", raw)
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		t.Fatalf("not a hex quantity: %s", raw)
	}
	return n
}
