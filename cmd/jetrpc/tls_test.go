package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
)

// runCLI runs the command line in process and returns its exit code,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// serverCN dials addr over TLS and returns the common name of the server's
// certificate.
func serverCN(t *testing.T, addr string, cfg *tls.Config) string {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// TestBinaryTLS runs "jetrpc serve" with --tls-cert, --tls-key and
// --tls-client-ca: "jetrpc call" over tls://, https:// and wss:// with a
// client certificate; without one, or trusting another CA, it fails. SIGHUP,
// and later a change of the files alone, reload the certificate while a
// connection open from before goes on. "jetrpc bench --target" loads the
// TCP listener over TLS.
func TestBinaryTLS(t *testing.T) {
	certs := testcert.New(t, "test CA")
	other := testcert.New(t, "other CA")
	srv := certs.Issue(t, "srv", testcert.Template{CommonName: "first"})
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0",
		"--tls-cert", srv.CertFile, "--tls-key", srv.KeyFile, "--tls-client-ca", certs.CAFile)
	addrs := p.stderr.listening(t, "tcp", "http")
	if !strings.Contains(p.stderr.String(), `msg="tls: serving" subject="CN=first"`) {
		t.Errorf("no log line of the certificate served:\n%s", p.stderr.String())
	}
	tlsFlags := []string{"--tls-ca", certs.CAFile, "--tls-cert", certs.Client.CertFile, "--tls-key", certs.Client.KeyFile}
	targets := [][]string{{"--tcp", "tls://" + addrs["tcp"]}, {"--http", "https://" + addrs["http"] + "/"},
		{"--ws", "wss://" + addrs["http"] + "/ws"}}
	call := func(target []string, flags []string) (int, string, string) {
		t.Helper()
		args := append(append(append([]string{"call", "--timeout", "5s"}, target...), flags...), "subtract", "[42,23]")
		return runCLI(t, args...)
	}
	for _, target := range targets {
		if code, out, errs := call(target, tlsFlags); code != 0 || out != "19\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", target, code, out, errs)
		}
		if code, _, errs := call(target, tlsFlags[:2]); code != 1 || !strings.Contains(errs, "certificate") {
			t.Errorf("%v without a client certificate: exit %d, stderr %q", target, code, errs)
		}
		if code, _, errs := call(target, []string{"--tls-ca", other.CAFile}); code != 1 ||
			!strings.Contains(errs, "certificate signed by unknown authority") {
			t.Errorf("%v trusting another CA: exit %d, stderr %q", target, code, errs)
		}
		if code, out, errs := call(target, append([]string{"--tls-insecure"}, tlsFlags[2:]...)); code != 0 || out != "19\n" {
			t.Errorf("%v --tls-insecure: exit %d, stdout %q, stderr %q", target, code, out, errs)
		}
	}
	if code, _, errs := call(targets[1], tlsFlags[:2]); !strings.Contains(errs, "give --tls-cert and --tls-key") {
		t.Errorf("https without a client certificate: exit %d, stderr %q, want the hint", code, errs)
	}

	// A connection open from before the reloads.
	mutual := certs.MutualClientConfig()
	open, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addrs["tcp"], mutual)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	open.SetDeadline(time.Now().Add(30 * time.Second))
	fr := frame.NewReader(open, frame.NDJSON, 0)
	callOpen := func() {
		t.Helper()
		if _, err := io.WriteString(open, `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`+"\n"); err != nil {
			t.Fatal(err)
		}
		if f, err := fr.Next(); err != nil || !bytes.Contains(f, []byte(`"result":19`)) {
			t.Fatalf("the open connection: %s %v", f, err)
		}
	}
	callOpen()

	certs.Issue(t, "srv", testcert.Template{CommonName: "second"})
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog(t, p, `msg="tls: reloaded on SIGHUP" subject="CN=second"`)
	for _, addr := range []string{addrs["tcp"], addrs["http"]} {
		if cn := serverCN(t, addr, mutual); cn != "second" {
			t.Errorf("%s after SIGHUP: certificate %q", addr, cn)
		}
	}
	callOpen()

	certs.Issue(t, "srv", testcert.Template{CommonName: "third"})
	deadline := time.Now().Add(10 * time.Second)
	for serverCN(t, addrs["tcp"], mutual) != "third" { // at most a second, then the next handshake
		if time.Now().After(deadline) {
			t.Fatalf("the changed files were not reloaded:\n%s", p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitLog(t, p, `msg="tls: reloaded, the files changed" subject="CN=third"`)
	callOpen()

	code, out, errs := runCLI(t, append([]string{"bench", "--target", addrs["tcp"], "--duration", "300ms", "--rounds", "1",
		"--conns", "2", "--pipeline", "4", "--warmup=false", "--json"}, tlsFlags...)...)
	var rep struct {
		Servers []struct {
			OK     int64 `json:"ok"`
			Failed int64 `json:"failed"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Servers) != 1 ||
		rep.Servers[0].OK == 0 || rep.Servers[0].Failed != 0 {
		t.Errorf("bench over TLS: exit %d, %v, stdout %s, stderr %s", code, err, out, errs)
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}

func waitLog(t *testing.T, p *process, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no log %q:\n%s", want, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTLSFlagErrors: bad TLS flags are usage errors (exit 2) naming the
// flag.
func TestTLSFlagErrors(t *testing.T) {
	certs := testcert.New(t, "test CA")
	s, c := certs.Server, certs.Client
	bad := func(want string, args ...string) {
		t.Helper()
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
	}
	bad("--tls-cert: needs --tls-key", "serve", "--tls-cert", s.CertFile)
	bad("--tls-key: needs --tls-cert", "serve", "--tls-key", s.KeyFile)
	bad("--tls-client-ca: needs --tls-cert and --tls-key", "serve", "--tls-client-ca", certs.CAFile)
	bad("--tls-cert/--tls-key: ", "serve", "--tls-cert", s.CertFile+".missing", "--tls-key", s.KeyFile)
	bad("no such file", "serve", "--tls-cert", s.CertFile+".missing", "--tls-key", s.KeyFile)
	bad("--tls-cert/--tls-key: ", "serve", "--tls-cert", s.CertFile, "--tls-key", c.KeyFile)
	bad("the certificate expired at", "serve", "--tls-cert", certs.Expired.CertFile, "--tls-key", certs.Expired.KeyFile)
	bad("--tls-client-ca: "+s.KeyFile+": no PEM certificate in it", "serve", "--tls-cert", s.CertFile, "--tls-key", s.KeyFile,
		"--tls-client-ca", s.KeyFile)
	bad("--tls-cert: needs --tcp or --http", "serve", "--stdio", "--tls-cert", s.CertFile, "--tls-key", s.KeyFile)

	bad("--tls-ca: the target is not TLS", "call", "--tls-ca", certs.CAFile, "sum", "[1]")
	bad("--tls-insecure: the target is not TLS", "call", "--http", "http://127.0.0.1:1/", "--tls-insecure", "sum", "[1]")
	bad("--tls-cert: needs --tls-key", "call", "--tcp", "tls://127.0.0.1:1", "--tls-cert", c.CertFile, "sum", "[1]")
	bad("--tls-insecure with --tls-ca", "call", "--ws", "wss://127.0.0.1:1/ws", "--tls-insecure", "--tls-ca", certs.CAFile, "sum", "[1]")
	bad("--tls-ca: open", "call", "--tcp", "tls://127.0.0.1:1", "--tls-ca", certs.CAFile+".missing", "sum", "[1]")
	bad("missing port", "call", "--tcp", "tls://nowhere", "sum", "[1]")

	bad("--tls: needs --target", "bench", "--tls")
	bad("--tls-ca: needs --target", "bench", "--tls-ca", certs.CAFile)
	bad("--tls-key: needs --tls-cert", "bench", "--target", "127.0.0.1:1", "--tls-key", c.KeyFile)
}
