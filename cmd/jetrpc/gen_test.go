package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "TestGenDemo: rewrite bench/demo/democlient from the live server")

const democlient = "../../bench/demo/democlient/" + genFile

// TestGenDemo is step 1 of the round trip: jetrpc gen from a running
// jetrpc serve's rpc.discover, over HTTP and over TCP, writes exactly the
// committed bench/demo/democlient, whose tests are steps 2 and 3.
func TestGenDemo(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := p.stderr.listening(t, "tcp", "http")
	ctx := context.Background()
	var got [][]byte
	for _, url := range []string{"http://" + addrs["http"] + "/", "tcp://" + addrs["tcp"]} {
		dir := filepath.Join(t.TempDir(), "democlient")
		var out, errs bytes.Buffer
		if code := run(ctx, []string{"gen", "--out", dir, url}, nil, &out, &errs); code != 0 {
			t.Fatalf("gen %s: exit %d: %s", url, code, errs.String())
		}
		src, err := os.ReadFile(strings.TrimSpace(out.String()))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, src)
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatal("the documents over HTTP and TCP differ")
	}
	if *updateGolden {
		if err := os.WriteFile(democlient, got[0], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(democlient)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[0], want) {
		t.Fatalf("%s is not what jetrpc gen writes from the demo server now; run\n"+
			"\tgo test ./cmd/jetrpc -run TestGenDemo -update", democlient)
	}
}

func TestGenUsage(t *testing.T) {
	f := func(wantCode int, wantErr string, args ...string) {
		t.Helper()
		var out, errs bytes.Buffer
		if code := run(context.Background(), append([]string{"gen"}, args...), nil, &out, &errs); code != wantCode || !strings.Contains(errs.String(), wantErr) {
			t.Errorf("gen %q: exit %d (want %d), stderr %q (want %q)", args, code, wantCode, errs.String(), wantErr)
		}
	}
	f(2, "want one FILE or URL")
	f(2, "want one FILE or URL", "a.json", "b.json")
	f(2, "flag provided but not defined", "--nope", "a.json")
	f(0, "Usage: jetrpc gen", "-h")
	f(1, "no such file", filepath.Join(t.TempDir(), "missing.json"))
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"info":{}}`), 0o644)
	f(1, "not an OpenRPC document", bad)
	f(1, "connection refused", "http://127.0.0.1:1/")
}

func TestGenFile(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.json")
	os.WriteFile(doc, []byte(`{"openrpc":"1.3.2","info":{"title":"Tiny API","version":"1"},"methods":[`+
		`{"name":"add","params":[{"name":"a","schema":{"type":"integer"}},{"name":"b","schema":{"type":"integer"}}],"result":{"name":"c","schema":{"type":"integer"}}}]}`), 0o644)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"gen", "--out", dir, doc}, nil, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	src, _ := os.ReadFile(filepath.Join(dir, genFile))
	for _, want := range []string{"package tinyapi\n", "func (c *Client) Add(ctx context.Context, a int64, b int64) (int64, error) {"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("generated code lacks %q:\n%s", want, src)
		}
	}
}
