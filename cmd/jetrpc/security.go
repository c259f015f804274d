package main

// NOTE: the security flags of "jetrpc serve" (#13): authentication
// (--jwt-secret, --tokens), the Origin policy (--allow-origin) and the
// per-client limits (--rate-limit, --rate-burst, --max-conns-per-ip).
// securityFlags defines and checks them (the files are read then, so that
// a bad file is a usage error naming its flag), options makes the guard's
// options (package netserver/guard) and use the engine's authorisation
// middleware. TLS is in tls.go.
//
// With --jwt-secret or --tokens every client of --tcp and --http must
// authenticate (HTTP, WebSocket, SSE: Authorization: Bearer; TCP: the TLS
// client certificate, else the first call rpc.authenticate); a verified
// client certificate (--tls-client-ca) is an identity too. stdin/stdout
// (--stdio) and Unix sockets (--ipc) are not authenticated: whoever can
// write to them is the process that started the server or passed the
// socket file's mode (0600) already.

import (
	"errors"
	"flag"
	"fmt"
	"net"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/jwtauth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// securityFlags are the security flags and what they load.
type securityFlags struct {
	jwtSecret     string  // --jwt-secret FILE
	tokensFile    string  // --tokens FILE
	allowOrigin   string  // --allow-origin LIST
	rateLimit     float64 // --rate-limit CALLS/S; 0: none
	rateBurst     int     // --rate-burst N; 0: rateLimit rounded up
	maxConnsPerIP int     // --max-conns-per-ip N; 0: none

	authn   auth.Authenticator  // nil: no authentication
	rules   auth.Rules          // nil: every identity may call every method
	origins *guard.OriginPolicy // nil: only the request's own host
}

// define adds the security flags to fs.
func (f *securityFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.jwtSecret, "jwt-secret", "", "require an HS256 JWT signed with the hex-encoded 32-byte secret in `FILE`, iat within 60 s\n"+
		"(go-ethereum's --authrpc.jwtsecret): HTTP and WebSocket send Authorization: Bearer JWT, TCP the call rpc.authenticate")
	fs.StringVar(&f.tokensFile, "tokens", "", "require a static bearer token from `FILE`: lines NAME TOKEN [METHOD-PATTERN...]\n"+
		"(patterns such as eth_* or !admin_*: the methods NAME may call; none: all)")
	fs.StringVar(&f.allowOrigin, "allow-origin", "", "comma-separated origins (https://app.example.com, null, or *) allowed for WebSocket\n"+
		"upgrades and browser requests besides the server's own host; a request with no Origin header is allowed")
	fs.Float64Var(&f.rateLimit, "rate-limit", 0, "most calls per second per client (its identity, else its IP; a batch counts its calls):\n"+
		"over it -32005 Limit exceeded, or HTTP 429 with Retry-After (0: no limit)")
	fs.IntVar(&f.rateBurst, "rate-burst", 0, "most calls a client may make at once under --rate-limit (0: the rate, rounded up)")
	fs.IntVar(&f.maxConnsPerIP, "max-conns-per-ip", 0, "most open connections from one IP (an IPv6 /64), all listeners together (0: no limit)")
}

// check validates the flags and loads their files.
func (f *securityFlags) check() error {
	var as []auth.Authenticator
	if f.jwtSecret != "" {
		secret, err := jwtauth.LoadSecret(f.jwtSecret)
		if err != nil {
			return fmt.Errorf("--jwt-secret %s: %v", f.jwtSecret, trimPath(err, f.jwtSecret))
		}
		ja, err := jwtauth.New(secret, nil)
		if err != nil {
			return fmt.Errorf("--jwt-secret %s: %v", f.jwtSecret, err)
		}
		as = append(as, ja)
	}
	if f.tokensFile != "" {
		tk, err := auth.LoadTokens(f.tokensFile)
		if err != nil {
			return fmt.Errorf("--tokens %s: %v", f.tokensFile, trimPath(err, f.tokensFile))
		}
		as = append([]auth.Authenticator{tk}, as...)
		if r := tk.Rules(); len(r) > 0 {
			r["*"], r[""] = []string{"*"}, []string{"*"} // the other identities: everything
			f.rules = r
		}
	}
	if len(as) > 0 {
		f.authn = auth.Any(append([]auth.Authenticator{auth.Func(trustLocal)}, append(as, auth.ClientCert())...)...)
	}
	if f.allowOrigin != "" {
		p, err := guard.ParseOriginPolicy(f.allowOrigin)
		if err != nil {
			return fmt.Errorf("--allow-origin %q: %v", f.allowOrigin, err)
		}
		f.origins = p
	}
	switch {
	case f.rateLimit < 0:
		return fmt.Errorf("--rate-limit %v: must not be negative (0: no limit)", f.rateLimit)
	case f.rateBurst < 0:
		return fmt.Errorf("--rate-burst %d: must not be negative", f.rateBurst)
	case f.rateBurst > 0 && f.rateLimit == 0:
		return errors.New("--rate-burst: needs --rate-limit")
	case f.maxConnsPerIP < 0:
		return fmt.Errorf("--max-conns-per-ip %d: must not be negative (0: no limit)", f.maxConnsPerIP)
	}
	return nil
}

// trimPath drops the path an error of the file's own repeats.
func trimPath(err error, path string) string {
	s := err.Error()
	if len(s) > len(path)+2 && s[:len(path)+2] == path+": " {
		return s[len(path)+2:]
	}
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) {
		if inner := pe.Unwrap(); inner != nil {
			return inner.Error()
		}
	}
	return s
}

// trustLocal gives stdin/stdout and Unix-socket clients the identity
// "local" without a credential.
func trustLocal(r *auth.Request) (*auth.Identity, error) {
	if _, unix := r.Remote.(*net.UnixAddr); unix || r.Transport == netserver.Stdio.String() {
		return localIdentity, nil
	}
	return nil, auth.ErrNoCredentials
}

var localIdentity = &auth.Identity{Name: "local", Scheme: "local", Until: auth.Forever}

// options returns the guard's options for these flags. serve makes one
// Guard of them for every listener, so that a client's rate and
// connections count across --tcp and --http.
func (f *securityFlags) options() *guard.Options {
	return &guard.Options{Auth: f.authn, Origins: f.origins,
		RateLimit: f.rateLimit, RateBurst: f.rateBurst, MaxConnsPerIP: f.maxConnsPerIP}
}

// use adds the authorisation middleware when the tokens file restricts
// some identity's methods.
func (f *securityFlags) use(e *dispatch.Engine) error {
	if f.rules == nil {
		return nil
	}
	mw, err := auth.Authorize(f.rules)
	if err != nil {
		return err
	}
	return e.Use(mw)
}
