package main

// NOTE: the credential flags of call and bench: --header (repeatable),
// --token-file and --jwt-secret, turned into client.Options' Header and
// Token.

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/jetrpc/jetrpc/client"
)

// headerList is a repeatable --header flag.
type headerList []string

func (h *headerList) String() string { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error {
	name, _, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(v, "\r\n") {
		return fmt.Errorf("want 'Name: value', got %q", v)
	}
	*h = append(*h, v)
	return nil
}

// credFlags are the credential flags.
type credFlags struct {
	headers   headerList
	tokenFile string
	jwtSecret string
}

func (f *credFlags) define(fs *flag.FlagSet, help bool) {
	text := func(s string) string {
		if help {
			return s
		}
		return ""
	}
	fs.Var(&f.headers, "header", text("send the header line `'Name: value'` over HTTP and WebSocket (repeatable)"))
	fs.StringVar(&f.tokenFile, "token-file", "", text("send the bearer token in `FILE` (HTTP, WebSocket: Authorization; TCP: rpc.authenticate)"))
	fs.StringVar(&f.jwtSecret, "jwt-secret", "", text("send an HS256 JWT signed with the hex secret in `FILE`, fresh iat each request"))
}

// given reports whether any credential flag was given.
func (f *credFlags) given() bool {
	return len(f.headers) > 0 || f.tokenFile != "" || f.jwtSecret != ""
}

// apply sets o's Header and Token; a problem is a usage error.
func (f *credFlags) apply(o *client.Options) error {
	o.Header = f.headers
	switch {
	case f.tokenFile != "" && f.jwtSecret != "":
		return usageErrorf("--token-file and --jwt-secret: give one")
	case f.tokenFile != "":
		b, err := os.ReadFile(f.tokenFile)
		if err != nil {
			return usageErrorf("--token-file %s: %v", f.tokenFile, trimPath(err, f.tokenFile))
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" || strings.ContainsAny(tok, "\r\n") {
			return usageErrorf("--token-file %s: want one token on one line", f.tokenFile)
		}
		o.Token = client.BearerToken(tok)
	case f.jwtSecret != "":
		secret, err := client.LoadJWTSecret(f.jwtSecret)
		if err == nil {
			o.Token, err = client.JWT(secret)
		}
		if err != nil {
			return usageErrorf("--jwt-secret %s: %v", f.jwtSecret, trimPath(err, f.jwtSecret))
		}
	}
	return nil
}
