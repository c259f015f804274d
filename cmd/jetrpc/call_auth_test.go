package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallCredentials: jetrpc call --jwt-secret and --token-file against
// jetrpc serve --jwt-secret --tokens, over HTTP, WebSocket and TCP; a
// wrong credential is exit 1 with the server's reason.
func TestCallCredentials(t *testing.T) {
	secretFile, _ := securityFiles(t)
	dir := t.TempDir()
	tokenFile, wrongFile, wrongSecret := filepath.Join(dir, "token"), filepath.Join(dir, "wrong"), filepath.Join(dir, "wrong.hex")
	os.WriteFile(tokenFile, []byte(opsToken+"\n"), 0o600)
	os.WriteFile(wrongFile, []byte("not-the-token-0123456789\n"), 0o600)
	os.WriteFile(wrongSecret, []byte(strings.Repeat("ab", 32)), 0o600)
	_, tokensFile := securityFiles(t)
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--jwt-secret", secretFile, "--tokens", tokensFile)
	addrs := p.stderr.listening(t, "tcp", "http")
	targets := [][]string{{"--http", addrs["http"]}, {"--ws", addrs["http"]}, {"--tcp", addrs["tcp"]}}
	for _, target := range targets {
		for _, cred := range [][]string{{"--jwt-secret", secretFile}, {"--token-file", tokenFile},
			{"--jwt-secret", secretFile, "--header", "X-Api-Key: k"}} {
			args := append(append(append([]string{}, target...), cred...), "subtract", "[42,23]")
			if code, stdout, stderr := runCallCmd(t, "", args...); code != 0 || stdout != "19\n" {
				t.Errorf("call %q: exit %d, %q, %q", args, code, stdout, stderr)
			}
		}
		for _, cred := range [][]string{{"--jwt-secret", wrongSecret}, {"--token-file", wrongFile}} {
			args := append(append(append([]string{}, target...), cred...), "subtract", "[42,23]")
			code, _, stderr := runCallCmd(t, "", args...)
			if code != 1 || !strings.Contains(stderr, "invalid token") {
				t.Errorf("call %q: exit %d, stderr %q; want 1 and the server's reason", args, code, stderr)
			}
		}
	}
	if code, _, stderr := runCallCmd(t, "", "--http", addrs["http"], "subtract", "[42,23]"); code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("no credential: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCallCmd(t, "", "--jwt-secret", tokenFile, "get_data"); code != 2 || !strings.Contains(stderr, "--jwt-secret") {
		t.Errorf("bad secret file: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCallCmd(t, "", "--header", "nocolon", "get_data"); code != 2 || !strings.Contains(stderr, "Name: value") {
		t.Errorf("bad header: exit %d, %q", code, stderr)
	}
}
