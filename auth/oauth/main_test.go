package oauth_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run if goroutines the tests started (servers,
// connections) outlive them.
func TestMain(m *testing.M) {
	base := runtime.NumGoroutine()
	code := m.Run()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base && code == 0 {
		buf := make([]byte, 1<<16)
		stacks := string(buf[:runtime.Stack(buf, true)])
		fmt.Fprintf(os.Stderr, "%d goroutines left (%d at start):\n%s\n", n, base, strings.TrimSpace(stacks))
		code = 1
	}
	os.Exit(code)
}
