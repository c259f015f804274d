// Package tlsconfig builds TLS configurations from PEM files: a server's
// (Reloader), whose certificate and client CAs are read again without a
// restart, and a client's (Client). Both accept TLS 1.2 and later only.
//
// A server serves TLS with Reloader.Config, in netserver.Options.TLS or any
// tls.Listener:
//
//	r, err := tlsconfig.New(tlsconfig.Options{CertFile: "cert.pem", KeyFile: "key.pem"})
//	srv := netserver.New(e, &netserver.Options{TLS: r.Config()})
//
// and reloads on SIGHUP with r.Reload, or lets the handshakes notice that
// the files changed (Options.CheckEvery).
package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// MinVersion is the oldest protocol version the configurations accept.
const MinVersion = tls.VersionTLS12

// DefaultCheckEvery is how often, by default, a handshake checks whether
// the files changed.
const DefaultCheckEvery = time.Second

// Options names a server's files.
type Options struct {
	// CertFile holds the certificate chain (PEM, the leaf first) and
	// KeyFile its private key. Both are required.
	CertFile, KeyFile string
	// ClientCAFile, if set, holds the CA certificates (PEM) that client
	// certificates must chain to: every client must then present one
	// (mutual TLS).
	ClientCAFile string
	// CheckEvery is how often a handshake looks at the files' modification
	// times and sizes, and reloads them when one changed (default
	// DefaultCheckEvery; negative: never, only Reload does). The check is
	// made by the handshake that finds it due, with two or three stat calls.
	CheckEvery time.Duration
	// OnReload, if set, is called after each reload that a change of the
	// files caused (not Reload's: it returns its error), with nil when the
	// new files are in use, else why they were refused (the old ones stay in
	// use, and the files are tried again once they change again). It runs
	// on the handshake's goroutine.
	OnReload func(err error)
}

// Reloader is a server's TLS configuration read from files, which it reads
// again on Reload and when they change. Connections open keep the
// certificate they were made with; new handshakes get the new one. It is
// safe for concurrent use.
type Reloader struct {
	opts  Options
	every time.Duration
	base  *tls.Config // what Config returned: each loaded config is a copy of it

	cur   atomic.Pointer[loaded]
	next  atomic.Int64 // when the next check is due, in ns since epoch
	epoch time.Time
	mu    sync.Mutex // one load at a time
	tried stamps     // of the files when a check last tried them (under mu)
}

// loaded is one reading of the files.
type loaded struct {
	cert  *tls.Certificate
	pool  *x509.CertPool // nil without ClientCAFile
	cfg   *tls.Config    // what handshakes use; built from base on first use
	once  sync.Once
	stamp stamps
}

// stamps tells whether files changed: modification time and size of the
// certificate, key and client CA files.
type stamps [3]struct {
	mod  time.Time
	size int64
}

// New reads the files and returns their Reloader. The certificate must be
// valid now: an expired one, or one not yet valid, is an error.
func New(o Options) (*Reloader, error) {
	if o.CertFile == "" || o.KeyFile == "" {
		return nil, errors.New("tlsconfig: a certificate file and a key file are required")
	}
	r := &Reloader{opts: o, every: o.CheckEvery, epoch: time.Now()}
	if r.every == 0 {
		r.every = DefaultCheckEvery
	}
	l, err := r.load()
	if err != nil {
		return nil, err
	}
	r.cur.Store(l)
	r.tried = l.stamp
	r.base = &tls.Config{
		MinVersion:         MinVersion,
		GetConfigForClient: r.configForClient,
		GetCertificate:     r.getCertificate,
	}
	if l.pool != nil {
		r.base.ClientAuth, r.base.ClientCAs = tls.RequireAndVerifyClientCert, l.pool
	}
	r.next.Store(int64(r.every))
	return r, nil
}

// Config returns the server configuration. Change its other fields, if
// you need to, before serving with it: the configuration each handshake
// uses (through GetConfigForClient) is a copy of it with the certificate
// and client CAs of the files as last read.
func (r *Reloader) Config() *tls.Config { return r.base }

// Certificate returns the certificate in use (its Leaf is set).
func (r *Reloader) Certificate() *tls.Certificate { return r.cur.Load().cert }

// Reload reads the files again. On an error the files read before stay in
// use.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, err := r.load()
	if err != nil {
		return err
	}
	r.cur.Store(l)
	r.tried = l.stamp
	return nil
}

// configForClient is the handshakes' GetConfigForClient: the current
// configuration, after a check of the files when one is due.
func (r *Reloader) configForClient(*tls.ClientHelloInfo) (*tls.Config, error) {
	r.checkIfDue()
	l := r.cur.Load()
	l.once.Do(func() {
		c := r.base.Clone()
		c.GetConfigForClient, c.GetCertificate = nil, nil
		c.Certificates = []tls.Certificate{*l.cert}
		if l.pool != nil {
			c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, l.pool
		}
		c.MinVersion = max(c.MinVersion, MinVersion)
		l.cfg = c
	})
	return l.cfg, nil
}

func (r *Reloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.checkIfDue()
	return r.cur.Load().cert, nil
}

// checkIfDue checks the files when a check is due and no other goroutine
// is making it.
func (r *Reloader) checkIfDue() {
	if r.every < 0 {
		return
	}
	now := int64(time.Since(r.epoch))
	due := r.next.Load()
	if now < due || !r.next.CompareAndSwap(due, now+int64(r.every)) {
		return
	}
	if !r.mu.TryLock() { // a Reload is reading them
		return
	}
	defer r.mu.Unlock()
	st := r.stat()
	if st == r.tried {
		return
	}
	r.tried = st
	l, err := r.load()
	if err == nil {
		r.cur.Store(l)
	}
	if r.opts.OnReload != nil {
		r.opts.OnReload(err)
	}
}

// stat returns the files' stamps (zero for a file it cannot stat).
func (r *Reloader) stat() stamps {
	var st stamps
	for i, name := range [...]string{r.opts.CertFile, r.opts.KeyFile, r.opts.ClientCAFile} {
		if name == "" {
			continue
		}
		if fi, err := os.Stat(name); err == nil {
			st[i].mod, st[i].size = fi.ModTime(), fi.Size()
		}
	}
	return st
}

// load reads the files.
func (r *Reloader) load() (*loaded, error) {
	st := r.stat() // before reading: a change made meanwhile is seen next time
	cert, err := loadKeyPair(r.opts.CertFile, r.opts.KeyFile)
	if err != nil {
		return nil, err
	}
	l := &loaded{cert: cert, stamp: st}
	if r.opts.ClientCAFile != "" {
		if l.pool, err = loadPool(r.opts.ClientCAFile); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// loadKeyPair reads a certificate and its key, and checks that the
// certificate is valid now.
func loadKeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("tlsconfig: %s, %s: %w", certFile, keyFile, err)
	}
	leaf := cert.Leaf
	if leaf == nil { // set since Go 1.23 unless x509keypairleaf=0
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("tlsconfig: %s: %w", certFile, err)
		}
		cert.Leaf = leaf
	}
	now := time.Now()
	switch {
	case now.After(leaf.NotAfter):
		return nil, fmt.Errorf("tlsconfig: %s: the certificate expired at %s", certFile, leaf.NotAfter.UTC().Format(time.RFC3339))
	case now.Before(leaf.NotBefore):
		return nil, fmt.Errorf("tlsconfig: %s: the certificate is not valid before %s", certFile, leaf.NotBefore.UTC().Format(time.RFC3339))
	}
	return &cert, nil
}

// loadPool reads the PEM certificates of a CA file.
func loadPool(name string) (*x509.CertPool, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("tlsconfig: %w", err)
	}
	pool := x509.NewCertPool()
	n := 0
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tlsconfig: %s: %w", name, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("tlsconfig: %s: no PEM certificate in it", name)
	}
	return pool, nil
}

// Client returns a client configuration that trusts the CA certificates in
// caFile (the system's roots when caFile is "") and presents the
// certificate in certFile with the key in keyFile (no certificate when
// both are ""; one without the other is an error). The server's name is
// checked against the name or IP address dialled, unless ServerName is set
// on the result.
func Client(caFile, certFile, keyFile string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: MinVersion}
	if caFile != "" {
		pool, err := loadPool(caFile)
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	switch {
	case certFile == "" && keyFile == "":
	case certFile == "" || keyFile == "":
		return nil, errors.New("tlsconfig: a client certificate needs both its certificate file and its key file")
	default:
		cert, err := loadKeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{*cert}
	}
	return c, nil
}
