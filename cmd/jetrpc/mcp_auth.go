package main

// NOTE: jetrpc serve --mcp as an OAuth 2.1 resource server (#36), with
// package auth/oauth: --mcp-auth-issuer (the authorization servers whose
// JWT access tokens are accepted), --mcp-introspect (opaque tokens, with
// --mcp-client-id and --mcp-client-secret-file), --mcp-resource (the
// canonical URI, default the HTTP listener's /mcp) and --mcp-scope (the
// scope each tool, resource or prompt needs).
//
// The validator joins the server's authenticators (security.go), so, as
// with --jwt-secret, every client of --tcp and --http must authenticate;
// a 401 carries the OAuth challenge (guard.Options.Challenge) and the
// protected resource metadata is served without authentication
// (guard.Options.Public). The default resource depends on the address the
// HTTP listener binds, so the Resource and the Validator are made once it
// is bound (start), before anything is served; until then the hooks have
// nothing to read.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// mcpAuthFlags are the OAuth flags of --mcp and what they make.
type mcpAuthFlags struct {
	issuers    stringList    // --mcp-auth-issuer URL
	resource   string        // --mcp-resource URL
	scopes     stringList    // --mcp-scope NAME=SCOPE
	introspect string        // --mcp-introspect URL
	clientID   string        // --mcp-client-id
	secretFile string        // --mcp-client-secret-file FILE
	refresh    time.Duration // --mcp-jwks-refresh

	rules  *oauth.ScopeRules
	secret string
	paths  []string // where the metadata is served

	res *oauth.Resource  // made by start
	v   *oauth.Validator // made by start
}

func (f *mcpAuthFlags) define(fs *flag.FlagSet) {
	fs.Var(&f.issuers, "mcp-auth-issuer", "with --mcp: accept OAuth access tokens (JWTs) of the authorization server whose issuer is `URL`\n"+
		"(repeatable; its keys are found through its RFC 8414 or OpenID metadata); every client must then authenticate")
	fs.StringVar(&f.resource, "mcp-resource", "", "with --mcp-auth-issuer or --mcp-introspect: the MCP endpoint's canonical `URL`, the audience its\n"+
		"tokens must have (default: the HTTP listener's /mcp, such as http://127.0.0.1:8080/mcp)")
	fs.Var(&f.scopes, "mcp-scope", "with --mcp-auth-issuer or --mcp-introspect: the tool, prompt or resource URI `NAME` needs SCOPE\n"+
		"(NAME=SCOPE [SCOPE...], repeatable; NAME may end with *; \"*=SCOPE\" for everything else)")
	fs.StringVar(&f.introspect, "mcp-introspect", "", "with --mcp: check opaque access tokens at the introspection endpoint `URL` (RFC 7662)")
	fs.StringVar(&f.clientID, "mcp-client-id", "", "the client id of this server at --mcp-introspect")
	fs.StringVar(&f.secretFile, "mcp-client-secret-file", "", "the client secret of this server at --mcp-introspect, in `FILE`")
	fs.DurationVar(&f.refresh, "mcp-jwks-refresh", oauth.DefaultRefreshInterval, "with --mcp-auth-issuer: the least time between two fetches of an issuer's keys\n"+
		"for a token signed with a key it has not seen (a rotated-in key)")
}

// on reports whether the endpoint is an OAuth resource server.
func (f *mcpAuthFlags) on() bool { return len(f.issuers) > 0 || f.introspect != "" }

// check validates the flags and reads the secret; mcp is --mcp.
func (f *mcpAuthFlags) check(mcp bool, httpAddr string) error {
	if !f.on() {
		switch {
		case f.resource != "":
			return errors.New("--mcp-resource: needs --mcp-auth-issuer or --mcp-introspect")
		case len(f.scopes) > 0:
			return errors.New("--mcp-scope: needs --mcp-auth-issuer or --mcp-introspect")
		case f.clientID != "" || f.secretFile != "":
			return errors.New("--mcp-client-id and --mcp-client-secret-file: need --mcp-introspect")
		}
		return nil
	}
	flagName := "--mcp-auth-issuer"
	if len(f.issuers) == 0 {
		flagName = "--mcp-introspect"
	}
	switch {
	case !mcp:
		return fmt.Errorf("%s: needs --mcp", flagName)
	case httpAddr == "":
		return fmt.Errorf("%s: needs the HTTP listener (--http ADDR)", flagName)
	}
	if f.refresh <= 0 {
		return fmt.Errorf("--mcp-jwks-refresh %v: must be positive", f.refresh)
	}
	for _, iss := range f.issuers {
		if err := checkAuthURL(iss); err != nil {
			return fmt.Errorf("--mcp-auth-issuer %q: %v", iss, err)
		}
	}
	path := mcpPath
	if f.resource != "" {
		uri, err := oauth.CanonicalURI(f.resource)
		if err != nil {
			return fmt.Errorf("--mcp-resource %q: %v", f.resource, strings.TrimPrefix(err.Error(), "oauth: "))
		}
		u, _ := url.Parse(uri)
		path = u.EscapedPath()
	}
	f.paths = []string{oauth.WellKnownPath + strings.TrimSuffix(path, "/")}
	if strings.TrimSuffix(path, "/") != "" {
		f.paths = append(f.paths, oauth.WellKnownPath)
	}
	rules, err := oauth.ParseScopeRules(f.scopes)
	if err != nil {
		return fmt.Errorf("--mcp-scope: %v", strings.TrimPrefix(err.Error(), "oauth: "))
	}
	f.rules = rules
	if f.introspect != "" {
		if err := checkAuthURL(f.introspect); err != nil {
			return fmt.Errorf("--mcp-introspect %q: %v", f.introspect, err)
		}
		if f.clientID == "" || f.secretFile == "" {
			return errors.New("--mcp-introspect: needs --mcp-client-id and --mcp-client-secret-file")
		}
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return fmt.Errorf("--mcp-client-secret-file %s: %v", f.secretFile, trimPath(err, f.secretFile))
		}
		if f.secret = strings.TrimSpace(string(b)); f.secret == "" {
			return fmt.Errorf("--mcp-client-secret-file %s: the file is empty", f.secretFile)
		}
	} else if f.clientID != "" || f.secretFile != "" {
		return errors.New("--mcp-client-id and --mcp-client-secret-file: need --mcp-introspect")
	}
	return nil
}

// checkAuthURL accepts an https URL, or an http one on loopback (a
// development authorization server), as package oauth fetches.
func checkAuthURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Host == "" || u.Scheme != "https" && u.Scheme != "http":
		return errors.New("want an absolute https URL")
	case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return errors.New("want https (http only on loopback)")
	}
	return nil
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// apply makes the guard an OAuth resource server's: the validator among
// its authenticators, the OAuth challenge on a 401, the metadata public.
func (f *mcpAuthFlags) apply(g *guard.Options) {
	if !f.on() {
		return
	}
	if g.Auth == nil {
		g.Auth = auth.Any(auth.Func(trustLocal), auth.Func(f.authenticate), auth.ClientCert())
	} else {
		g.Auth = auth.Any(g.Auth, auth.Func(f.authenticate))
	}
	base := f.rules.Base()
	g.Challenge = func(dst []byte, err error) []byte { return f.res.AppendUnauthorized(dst, base, err) }
	g.Public = append(g.Public, f.paths...)
}

// authenticate is the validator's Authenticate (once start made it).
func (f *mcpAuthFlags) authenticate(r *auth.Request) (*auth.Identity, error) {
	return f.v.Authenticate(r)
}

// document is the protected resource metadata (once start made it).
func (f *mcpAuthFlags) document() ([]byte, error) { return f.res.Document(), nil }

// start makes the Resource and the Validator, for the HTTP listener
// bound at addr (scheme http or https), and fetches the issuers' keys in
// the background.
func (f *mcpAuthFlags) start(scheme, addr string, log *slog.Logger) error {
	if !f.on() {
		return nil
	}
	uri := f.resource
	if uri == "" {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() { // --http :8080
				addr = net.JoinHostPort("localhost", port)
			}
		}
		uri = scheme + "://" + addr + mcpPath
	}
	servers := []string(f.issuers)
	if len(servers) == 0 { // introspection only: the endpoint's origin stands in
		u, _ := url.Parse(f.introspect)
		servers = []string{u.Scheme + "://" + u.Host}
	}
	res, err := oauth.NewResource(oauth.Metadata{Resource: uri, AuthorizationServers: servers,
		ScopesSupported: f.rules.Scopes(), ResourceName: "jetrpc MCP"})
	if err != nil {
		return fmt.Errorf("--mcp-resource: %v", err)
	}
	opts := oauth.Options{RefreshInterval: f.refresh}
	if f.introspect != "" {
		opts.Introspection = &oauth.Introspection{URL: f.introspect, ClientID: f.clientID, ClientSecret: f.secret}
	}
	v, err := oauth.New(res.URI(), f.issuers, &opts)
	if err != nil {
		return fmt.Errorf("--mcp-auth-issuer: %v", err)
	}
	f.res, f.v = res, v
	log.Info("mcp: OAuth resource server", "resource", res.URI(), "metadata", res.MetadataURL(), "issuers", servers)
	if len(f.issuers) > 0 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), oauth.DefaultFetchTimeout)
			defer cancel()
			start := time.Now()
			if err := v.Discover(ctx); err != nil {
				log.Warn("mcp: the authorization server's keys are not fetched yet; the first token will try again", "err", err)
				return
			}
			log.Info("mcp: authorization server keys fetched", "took", time.Since(start))
		}()
	}
	return nil
}

// mcpAccess is the scope rules as the endpoint applies them: the local
// identity (stdin/stdout, a Unix socket) may use everything.
type mcpAccess struct{ rules *oauth.ScopeRules }

func (a mcpAccess) Allowed(id *auth.Identity, name string) bool {
	return id == localIdentity || a.rules.Allowed(id, name)
}

func (a mcpAccess) Needed(name string) string { return a.rules.Needed(name) }

// forbidden is the step-up challenge of a 403 (mcphttp.Options.Forbidden).
func (f *mcpAuthFlags) forbidden(dst []byte, id *auth.Identity, needed string) []byte {
	return f.res.AppendForbidden(dst, oauth.StepUpScope(id, needed), "")
}
