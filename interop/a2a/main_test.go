// Package a2a runs the official A2A Go SDK's client (a2a-go v0.3.3, the
// 0.3 wire) against jetrpc serve --a2a: a separate module, so that the
// SDK stays out of jetrpc's go.mod.
package a2a

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
)

// start runs jetrpc serve --a2a, with the extra flags, and returns its
// HTTP address.
func start(t testing.TB, extra ...string) string {
	t.Helper()
	bin := os.Getenv("JETRPC_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "jetrpc")
		build := exec.Command("go", "build", "-o", bin, "./cmd/jetrpc")
		build.Dir = "../.."
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}
	args := []string{"serve", "--a2a", "--a2a-allow-private-webhooks", "--tcp", "", "--http", "127.0.0.1:0"} // the webhooks are on 127.0.0.1
	cmd := exec.Command(bin, append(args, extra...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening http "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("jetrpc serve --a2a did not start")
	}
	return ""
}

// client makes an a2a-go client from the server's card.
func client(t testing.TB, addr string) *a2aclient.Client {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var card sdk.AgentCard
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(context.Background(), &card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func text(s, id string) *sdk.Message {
	m := sdk.NewMessage(sdk.MessageRoleUser, sdk.TextPart{Text: s})
	if id != "" {
		m.ID = id
	}
	return m
}
