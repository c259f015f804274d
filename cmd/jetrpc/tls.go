package main

// NOTE: the TLS flags. serve: --tls-cert, --tls-key and --tls-client-ca
// (tlsServeFlags): the files are read when the flags are checked, so that
// a file that cannot serve is a usage error naming its flag; SIGHUP reads
// them again (watch), and so does the first handshake after they change.
// call and bench: --tls-ca, --tls-cert, --tls-key and --tls-insecure
// (tlsClientFlags); call turns TLS on with https://, wss:// or --tcp
// tls://ADDR, bench with --tls or any of these flags.

import (
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/tlsconfig"
)

// tlsServeFlags are serve's TLS flags.
type tlsServeFlags struct {
	cert, key, clientCA string

	reloader *tlsconfig.Reloader         // nil without --tls-cert
	log      atomic.Pointer[slog.Logger] // for reloads noticed by handshakes
}

// define adds the flags to fs.
func (f *tlsServeFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.cert, "tls-cert", "", "serve TLS on --tcp and --http (HTTPS, WSS) with the certificate chain in `FILE` (PEM);\nreloaded on SIGHUP and when the files change")
	fs.StringVar(&f.key, "tls-key", "", "the private key of --tls-cert, in `FILE` (PEM)")
	fs.StringVar(&f.clientCA, "tls-client-ca", "", "require client certificates signed by a CA in `FILE` (PEM; mutual TLS)")
}

// check reads the files; listeners tells whether --tcp or --http is on.
func (f *tlsServeFlags) check(listeners bool) error {
	switch {
	case f.cert == "" && f.key == "" && f.clientCA == "":
		return nil
	case f.cert == "":
		if f.key != "" {
			return fmt.Errorf("--tls-key: needs --tls-cert")
		}
		return fmt.Errorf("--tls-client-ca: needs --tls-cert and --tls-key")
	case f.key == "":
		return fmt.Errorf("--tls-cert: needs --tls-key")
	case !listeners:
		return fmt.Errorf("--tls-cert: needs --tcp or --http (stdio has no TLS)")
	}
	if f.clientCA != "" {
		if _, err := tlsconfig.Client(f.clientCA, "", ""); err != nil {
			return fmt.Errorf("--tls-client-ca: %v", trimPkg(err))
		}
	}
	r, err := tlsconfig.New(tlsconfig.Options{CertFile: f.cert, KeyFile: f.key, ClientCAFile: f.clientCA, OnReload: f.reloaded})
	if err != nil {
		return fmt.Errorf("--tls-cert/--tls-key: %v", trimPkg(err))
	}
	f.reloader = r
	return nil
}

// watch logs the certificate in use and reads the files again on each
// SIGHUP until the returned stop is called.
func (f *tlsServeFlags) watch(log *slog.Logger) (stop func()) {
	if f.reloader == nil {
		return func() {}
	}
	f.log.Store(log)
	f.logCert("tls: serving", log)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-hup:
				if err := f.reloader.Reload(); err != nil {
					log.Error("tls: reload on SIGHUP failed; the certificate in use stays", "err", trimPkg(err))
					continue
				}
				f.logCert("tls: reloaded on SIGHUP", log)
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

// reloaded logs a reload that a handshake caused (Options.OnReload).
func (f *tlsServeFlags) reloaded(err error) {
	log := f.log.Load()
	switch {
	case log == nil:
	case err != nil:
		log.Error("tls: the files changed but cannot be used; the certificate in use stays", "err", trimPkg(err))
	default:
		f.logCert("tls: reloaded, the files changed", log)
	}
}

func (f *tlsServeFlags) logCert(msg string, log *slog.Logger) {
	leaf := f.reloader.Certificate().Leaf
	log.Info(msg, "subject", leaf.Subject.String(), "expires", leaf.NotAfter.UTC().Format(time.RFC3339),
		"client_ca", f.clientCA != "")
}

// tlsClientFlags are the TLS flags of call and bench.
type tlsClientFlags struct {
	ca, cert, key string
	insecure      bool
}

// define adds the flags to fs; call prints its own usage (no help texts).
func (f *tlsClientFlags) define(fs *flag.FlagSet, help bool) {
	h := func(s string) string {
		if help {
			return s
		}
		return ""
	}
	fs.StringVar(&f.ca, "tls-ca", "", h("trust the CA certificates in `FILE` (PEM) instead of the system's roots"))
	fs.StringVar(&f.cert, "tls-cert", "", h("present the client certificate in `FILE` (PEM; with --tls-key)"))
	fs.StringVar(&f.key, "tls-key", "", h("the private key of --tls-cert, in `FILE` (PEM)"))
	fs.BoolVar(&f.insecure, "tls-insecure", false, h("do not verify the server's certificate (tests only)"))
}

// set returns the name of the first of the flags given, "" if none.
func (f *tlsClientFlags) set(given map[string]bool) string {
	for _, name := range []string{"tls-ca", "tls-cert", "tls-key", "tls-insecure"} {
		if given[name] {
			return "--" + name
		}
	}
	return ""
}

// config reads the files into a client configuration.
func (f *tlsClientFlags) config() (*tls.Config, error) {
	switch {
	case f.cert != "" && f.key == "":
		return nil, fmt.Errorf("--tls-cert: needs --tls-key")
	case f.key != "" && f.cert == "":
		return nil, fmt.Errorf("--tls-key: needs --tls-cert")
	case f.insecure && f.ca != "":
		return nil, fmt.Errorf("--tls-insecure with --tls-ca: give one or the other")
	}
	if f.ca != "" {
		if _, err := tlsconfig.Client(f.ca, "", ""); err != nil {
			return nil, fmt.Errorf("--tls-ca: %v", trimPkg(err))
		}
	}
	c, err := tlsconfig.Client(f.ca, f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %v", trimPkg(err))
	}
	c.InsecureSkipVerify = f.insecure
	return c, nil
}

// trimPkg drops the "tlsconfig: " prefix of an error for a flag's message.
func trimPkg(err error) string { return strings.TrimPrefix(err.Error(), "tlsconfig: ") }

// options returns o with TLS for the --tcp and --http servers (o itself
// without TLS): the other listeners of serve (--ipc, a Unix socket) stay
// plain.
func (f *tlsServeFlags) options(o *netserver.Options) *netserver.Options {
	if f.reloader == nil {
		return o
	}
	c := *o
	c.TLS = f.reloader.Config()
	return &c
}

// tlsScheme marks a TLS address for --tcp (call).
const tlsScheme = "tls://"

// setTLS sets the call's TLS configuration when its target is TLS
// (https://, wss://, --tcp tls://ADDR); the TLS flags with any other
// target are a usage error.
func (cfg *callConfig) setTLS(given map[string]bool, f *tlsClientFlags) error {
	on := strings.HasPrefix(cfg.addr, "https://") || strings.HasPrefix(cfg.addr, "wss://")
	if addr, ok := strings.CutPrefix(cfg.addr, tlsScheme); ok && cfg.target == "tcp" {
		cfg.addr, on = addr, true
	}
	if !on {
		if name := f.set(given); name != "" {
			return usageErrorf("%s: the target is not TLS (use https://, wss:// or --tcp tls://ADDR)", name)
		}
		return nil
	}
	c, err := f.config()
	if err != nil {
		return &usageError{err.Error()}
	}
	cfg.tls = c
	return nil
}
