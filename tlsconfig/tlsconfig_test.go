package tlsconfig_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/tlsconfig"
)

func TestNewErrors(t *testing.T) {
	certs := testcert.New(t, "test CA")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("nothing here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	future := certs.Issue(t, "future", testcert.Template{NotBefore: time.Now().Add(time.Hour)})
	f := func(o tlsconfig.Options, want string) {
		t.Helper()
		_, err := tlsconfig.New(o)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%+v): %v, want an error with %q", o, err, want)
		}
	}
	f(tlsconfig.Options{CertFile: certs.Server.CertFile}, "a certificate file and a key file are required")
	f(tlsconfig.Options{CertFile: filepath.Join(dir, "none.pem"), KeyFile: certs.Server.KeyFile}, "no such file")
	f(tlsconfig.Options{CertFile: certs.Server.CertFile, KeyFile: certs.Client.KeyFile}, "private key does not match public key")
	f(tlsconfig.Options{CertFile: certs.Expired.CertFile, KeyFile: certs.Expired.KeyFile}, "the certificate expired at")
	f(tlsconfig.Options{CertFile: future.CertFile, KeyFile: future.KeyFile}, "the certificate is not valid before")
	f(tlsconfig.Options{CertFile: certs.Server.CertFile, KeyFile: certs.Server.KeyFile, ClientCAFile: empty}, "no PEM certificate in it")
	f(tlsconfig.Options{CertFile: certs.Server.CertFile, KeyFile: certs.Server.KeyFile, ClientCAFile: filepath.Join(dir, "none.pem")}, "no such file")
}

// handshakeConfig returns the configuration a handshake would use now.
func handshakeConfig(t *testing.T, r *tlsconfig.Reloader) *tls.Config {
	t.Helper()
	c, err := r.Config().GetConfigForClient(&tls.ClientHelloInfo{})
	if err != nil || c == nil {
		t.Fatalf("GetConfigForClient: %v, %v", c, err)
	}
	return c
}

func commonName(t *testing.T, c *tls.Config) string {
	t.Helper()
	if len(c.Certificates) != 1 {
		t.Fatalf("%d certificates", len(c.Certificates))
	}
	return c.Certificates[0].Leaf.Subject.CommonName
}

func TestConfig(t *testing.T) {
	certs := testcert.New(t, "test CA")
	r, err := tlsconfig.New(tlsconfig.Options{CertFile: certs.Server.CertFile, KeyFile: certs.Server.KeyFile})
	if err != nil {
		t.Fatal(err)
	}
	base := r.Config()
	if base.MinVersion != tls.VersionTLS12 || base.ClientAuth != tls.NoClientCert {
		t.Errorf("Config: MinVersion %x, ClientAuth %v", base.MinVersion, base.ClientAuth)
	}
	base.NextProtos = []string{"jsonrpc"} // changed before serving: handshakes get it
	c := handshakeConfig(t, r)
	if commonName(t, c) != "server" || c.MinVersion != tls.VersionTLS12 || c.GetConfigForClient != nil ||
		len(c.NextProtos) != 1 || c.ClientCAs != nil {
		t.Errorf("handshake config %+v", c)
	}
	if got, _ := base.GetCertificate(&tls.ClientHelloInfo{}); got.Leaf.Subject.CommonName != "server" {
		t.Errorf("GetCertificate: %v", got.Leaf.Subject)
	}

	m, err := tlsconfig.New(tlsconfig.Options{CertFile: certs.Server.CertFile, KeyFile: certs.Server.KeyFile, ClientCAFile: certs.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	if c := handshakeConfig(t, m); c.ClientAuth != tls.RequireAndVerifyClientCert || c.ClientCAs == nil ||
		!c.ClientCAs.Equal(certs.Pool) || m.Config().ClientAuth != tls.RequireAndVerifyClientCert {
		t.Errorf("with a client CA: ClientAuth %v, ClientCAs %v", c.ClientAuth, c.ClientCAs)
	}
}

func TestReload(t *testing.T) {
	certs := testcert.New(t, "test CA")
	other := testcert.New(t, "other CA")
	first := certs.Issue(t, "reloaded", testcert.Template{CommonName: "first"})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certs.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var reloads []error
	r, err := tlsconfig.New(tlsconfig.Options{CertFile: first.CertFile, KeyFile: first.KeyFile, ClientCAFile: ca,
		CheckEvery: time.Nanosecond, OnReload: func(err error) { reloads = append(reloads, err) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := commonName(t, handshakeConfig(t, r)); got != "first" || len(reloads) != 0 {
		t.Fatalf("%q, reloads %v", got, reloads)
	}

	certs.Issue(t, "reloaded", testcert.Template{CommonName: "second"})
	if err := os.WriteFile(ca, other.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	c := handshakeConfig(t, r)
	if got := commonName(t, c); got != "second" || len(reloads) != 1 || reloads[0] != nil {
		t.Fatalf("after a change: %q, reloads %v", got, reloads)
	}
	if !c.ClientCAs.Equal(other.Pool) || r.Certificate().Leaf.Subject.CommonName != "second" {
		t.Error("the client CA file or Certificate did not follow")
	}
	handshakeConfig(t, r)
	if len(reloads) != 1 {
		t.Errorf("unchanged files reloaded: %v", reloads)
	}

	// A broken key file is refused once, the old certificate stays; fixed,
	// it is taken.
	if err := os.WriteFile(first.KeyFile, []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	handshakeConfig(t, r)
	handshakeConfig(t, r)
	if got := commonName(t, handshakeConfig(t, r)); got != "second" || len(reloads) != 2 || reloads[1] == nil {
		t.Fatalf("after a broken file: %q, reloads %v", got, reloads)
	}
	if err := r.Reload(); err == nil || !strings.Contains(err.Error(), first.KeyFile) {
		t.Errorf("Reload of a broken file: %v", err)
	}
	certs.Issue(t, "reloaded", testcert.Template{CommonName: "third"})
	if got := commonName(t, handshakeConfig(t, r)); got != "third" || len(reloads) != 3 || reloads[2] != nil {
		t.Fatalf("after the fix: %q, reloads %v", got, reloads)
	}

	// Reload reads the files whatever their stamps.
	manual, err := tlsconfig.New(tlsconfig.Options{CertFile: first.CertFile, KeyFile: first.KeyFile, CheckEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	certs.Issue(t, "reloaded", testcert.Template{CommonName: "fourth"})
	if got := commonName(t, handshakeConfig(t, manual)); got != "third" {
		t.Errorf("CheckEvery -1 reloaded: %q", got)
	}
	if err := manual.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := commonName(t, handshakeConfig(t, manual)); got != "fourth" {
		t.Errorf("after Reload: %q", got)
	}
}

func TestCheckEvery(t *testing.T) {
	certs := testcert.New(t, "test CA")
	first := certs.Issue(t, "paced", testcert.Template{CommonName: "first"})
	r, err := tlsconfig.New(tlsconfig.Options{CertFile: first.CertFile, KeyFile: first.KeyFile, CheckEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	certs.Issue(t, "paced", testcert.Template{CommonName: "second"})
	if got := commonName(t, handshakeConfig(t, r)); got != "first" {
		t.Errorf("checked before CheckEvery: %q", got)
	}
}

func TestClient(t *testing.T) {
	certs := testcert.New(t, "test CA")
	c, err := tlsconfig.Client("", "", "")
	if err != nil || c.RootCAs != nil || len(c.Certificates) != 0 || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("Client(): %+v, %v", c, err)
	}
	c, err = tlsconfig.Client(certs.CAFile, certs.Client.CertFile, certs.Client.KeyFile)
	if err != nil || !c.RootCAs.Equal(certs.Pool) || len(c.Certificates) != 1 {
		t.Errorf("Client(ca, cert, key): %+v, %v", c, err)
	}
	f := func(ca, cert, key, want string) {
		t.Helper()
		if _, err := tlsconfig.Client(ca, cert, key); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Client(%q, %q, %q): %v, want an error with %q", ca, cert, key, err, want)
		}
	}
	f("", certs.Client.CertFile, "", "needs both")
	f("", "", certs.Client.KeyFile, "needs both")
	f(certs.Client.KeyFile, "", "", "no PEM certificate")
	f("", certs.Expired.CertFile, certs.Expired.KeyFile, "expired")
}
