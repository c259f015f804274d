package main

// NOTE: --a2a with the OAuth flags of --mcp (#36). The guard checks every
// token (mcp_auth.go), so /a2a already answers 401 with the OAuth
// challenge, whose resource_metadata is the one protected resource's
// (--mcp-resource: the audience of every token, at /mcp as at /a2a). What
// this file adds: every A2A method needs the scopes of the "*" rule of
// --mcp-scope (403 with the step-up challenge otherwise), and what an A2A
// client reads: the card is public (GET
// without a token) and declares the OAuth 2.0 scheme, with the
// authorization server's metadata URL and the scopes of the "*" rule. The
// flow's endpoints are the authorization server's metadata's, fetched in
// the background (as its keys are), so that start does not wait on it;
// until they are, the card names the metadata URL only.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// applyAuth makes the card public when the OAuth flags are on.
func (a *a2aFlags) applyAuth(oa *mcpAuthFlags, g *guard.Options) {
	if a.on && oa.on() {
		g.Public = append(g.Public, a2aCardPath, a2aCardPath2)
	}
}

// startA2AAuth makes the card of s declare the OAuth scheme of oa (after
// oa.start), and fetches the flow's endpoints in the background.
func startA2AAuth(s *a2a.Server, oa *mcpAuthFlags, log *slog.Logger) {
	if s == nil || !oa.on() {
		return
	}
	sec := a2a.OAuth2Security{Required: strings.Fields(oa.rules.Base()), Scopes: map[string]string{},
		Description: "OAuth 2.0 access tokens for " + oa.res.URI() + " (the resource indicator, RFC 8707)"}
	for _, sc := range oa.rules.Scopes() {
		sec.Scopes[sc] = ""
	}
	var urls []string
	if len(oa.issuers) > 0 {
		urls, _ = oauth.MetadataURLs(oa.issuers[0]) // checked by oa.check
	} else { // introspection only: its origin stands in, as in the resource metadata
		u, _ := url.Parse(oa.introspect)
		urls = []string{u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server"}
	}
	sec.MetadataURL = urls[0]
	s.SetSecurity(&sec)
	go func() {
		for wait := time.Second; ; wait = min(2*wait, 5*time.Minute) {
			authz, token, err := asEndpoints(urls)
			if err == nil {
				full := sec
				full.AuthorizationURL, full.TokenURL = authz, token
				s.SetSecurity(&full)
				log.Info("a2a: the card declares OAuth", "metadata", sec.MetadataURL, "token", token)
				return
			}
			log.Warn("a2a: the authorization server's endpoints are not known yet; the card names its metadata only", "err", err, "retry", wait)
			time.Sleep(wait)
		}
	}()
}

// asEndpoints reads the authorization and token endpoints from the
// first of the authorization server's metadata urls that has them.
func asEndpoints(urls []string) (authz, token string, err error) {
	c := &http.Client{Timeout: oauth.DefaultFetchTimeout}
	for _, u := range urls {
		var md struct {
			Authz string `json:"authorization_endpoint"`
			Token string `json:"token_endpoint"`
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, u, nil)
		req.Header.Set("Accept", "application/json")
		res, e := c.Do(req)
		if e != nil {
			err = e
			continue
		}
		e = json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(&md)
		res.Body.Close()
		switch {
		case res.StatusCode != http.StatusOK:
			err = fmt.Errorf("%s: %s", u, res.Status)
		case e != nil:
			err = fmt.Errorf("%s: %v", u, e)
		case md.Authz == "" || md.Token == "":
			err = fmt.Errorf("%s: no authorization_endpoint or token_endpoint", u)
		default:
			return md.Authz, md.Token, nil
		}
	}
	return "", "", err
}

// a2aScoped is the /a2a handler next behind the "*" rule of --mcp-scope:
// a token without its scopes is 403 with the step-up challenge, as a
// tool's call on /mcp is (every A2A method needs the same scopes).
func a2aScoped(next fasthttp.RequestHandler, oa *mcpAuthFlags) fasthttp.RequestHandler {
	access := mcpAccess{oa.rules}
	return func(ctx *fasthttp.RequestCtx) {
		if id := nethttp.RequestIdentity(ctx); !access.Allowed(id, "") {
			ctx.Error("insufficient scope", fasthttp.StatusForbidden)
			ctx.Response.Header.SetBytesV(fasthttp.HeaderWWWAuthenticate, oa.forbidden(nil, id, oa.rules.Base()))
			return
		}
		next(ctx)
	}
}
