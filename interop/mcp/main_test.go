// Package interop drives jetrpc serve --mcp with the two Go MCP clients
// users run: the official SDK (github.com/modelcontextprotocol/go-sdk)
// and mcp-go (github.com/mark3labs/mcp-go), over Streamable HTTP and
// stdio, each on its default protocol version (2026-07-28: they probe
// server/discover first).
package interop

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const stepTimeout = 30 * time.Second

var jetrpcBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if jetrpcBin = os.Getenv("JETRPC_BIN"); jetrpcBin == "" {
		dir, err := os.MkdirTemp("", "jetrpc-interop-mcp-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "interop:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		jetrpcBin = filepath.Join(dir, "jetrpc")
		cmd := exec.Command("go", "build", "-o", jetrpcBin, "./cmd/jetrpc")
		cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Join("..", ".."), os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "interop: building jetrpc:", err)
			return 1
		}
	}
	return m.Run()
}

// serveHTTP starts jetrpc serve --mcp on a free loopback port and returns
// the endpoint's URL.
func serveHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(jetrpcBin, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	var mu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "listening" && f[1] == "http" {
				addr <- f[2]
			}
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a + "/mcp"
	case <-time.After(stepTimeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("jetrpc did not listen; stderr:\n%s", log.String())
		return ""
	}
}

// stdioArgs are the arguments of jetrpc serve --mcp --stdio.
var stdioArgs = []string{"serve", "--tcp", "", "--http", "", "--mcp", "--stdio"}

// waitProgress waits (2 s at most) for n progress values and returns them.
func waitProgress(mu *sync.Mutex, progress *[]float64, n int) []float64 {
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		got := append([]float64(nil), (*progress)...)
		mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}
