// Package testcert makes certificates for tests, with crypto/x509: a CA, a
// server certificate for 127.0.0.1, ::1 and localhost, a client
// certificate, and an expired server certificate, each also written as PEM
// files in the test's temporary directory. Keys are ECDSA P-256. Only tests
// import it.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// Pair is a certificate with its key.
type Pair struct {
	Cert              tls.Certificate
	CertPEM, KeyPEM   []byte
	CertFile, KeyFile string
}

// Set is a CA and the certificates it issued.
type Set struct {
	CA     *x509.Certificate
	CAPEM  []byte
	CAFile string
	Pool   *x509.CertPool // holds CA

	Server  Pair // for 127.0.0.1, ::1 and localhost
	Client  Pair // common name "client", for client authentication
	Expired Pair // a server certificate like Server that expired an hour ago

	key *ecdsa.PrivateKey // CA's
	dir string
}

var serial atomic.Int64

// New returns a new CA named name and its certificates, with their files in
// a temporary directory of t.
func New(t testing.TB, name string) *Set {
	t.Helper()
	s := &Set{dir: t.TempDir()}
	s.key = newKey(t)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &s.key.PublicKey, s.key)
	if err != nil {
		t.Fatal(err)
	}
	if s.CA, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	s.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	s.CAFile = filepath.Join(s.dir, "ca.pem")
	write(t, s.CAFile, s.CAPEM)
	s.Pool = x509.NewCertPool()
	s.Pool.AddCert(s.CA)
	s.Server = s.Issue(t, "server", Template{})
	s.Client = s.Issue(t, "client", Template{Client: true})
	s.Expired = s.Issue(t, "expired", Template{NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour)})
	return s
}

// Template says what Issue makes.
type Template struct {
	CommonName string // default: the file name given to Issue
	Client     bool   // a client certificate (else a server one for loopback)
	// NotBefore and NotAfter default to an hour ago and a day from now.
	NotBefore, NotAfter time.Time
}

// Issue returns a new certificate of the CA, written to NAME.pem and
// NAME-key.pem in the set's directory (replacing files of that name).
func (s *Set) Issue(t testing.TB, name string, tp Template) Pair {
	t.Helper()
	now := time.Now()
	if tp.CommonName == "" {
		tp.CommonName = name
	}
	if tp.NotBefore.IsZero() {
		tp.NotBefore = now.Add(-time.Hour)
	}
	if tp.NotAfter.IsZero() {
		tp.NotAfter = now.Add(24 * time.Hour)
	}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      pkix.Name{CommonName: tp.CommonName},
		NotBefore:    tp.NotBefore,
		NotAfter:     tp.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
	}
	if tp.Client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		tmpl.IPAddresses, tmpl.DNSNames = nil, nil
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.CA, &key.PublicKey, s.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := Pair{
		CertPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}),
		CertFile: filepath.Join(s.dir, name+".pem"),
		KeyFile:  filepath.Join(s.dir, name+"-key.pem"),
	}
	if p.Cert, err = tls.X509KeyPair(p.CertPEM, p.KeyPEM); err != nil {
		t.Fatal(err)
	}
	write(t, p.CertFile, p.CertPEM)
	write(t, p.KeyFile, p.KeyPEM)
	return p
}

// ServerConfig returns a server config with the Server certificate.
func (s *Set) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.Server.Cert}, MinVersion: tls.VersionTLS12}
}

// ClientConfig returns a client config that trusts the CA, without a
// client certificate.
func (s *Set) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: s.Pool, MinVersion: tls.VersionTLS12}
}

// MutualClientConfig is ClientConfig with the Client certificate.
func (s *Set) MutualClientConfig() *tls.Config {
	c := s.ClientConfig()
	c.Certificates = []tls.Certificate{s.Client.Cert}
	return c
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func write(t testing.TB, name string, b []byte) {
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
