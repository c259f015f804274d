package auth_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
)

const tokensFile = `
# name token [patterns]
alice alice-0123456789abcdef eth_* net_version
alice alice-rotated-0123456789
bob   bob-0123456789abcdef
`

func TestParseTokens(t *testing.T) {
	tk, err := auth.ParseTokens(strings.NewReader(tokensFile))
	if err != nil {
		t.Fatal(err)
	}
	f := func(token, wantName, wantErr string) {
		t.Helper()
		id, err := tk.Authenticate(&auth.Request{Token: []byte(token)})
		switch {
		case wantErr != "":
			if err == nil || auth.Reason(err) != wantErr {
				t.Errorf("%q: %v, %v; want %q", token, id, err, wantErr)
			}
		case err != nil || id.Name != wantName || id.Scheme != "bearer":
			t.Errorf("%q: %+v, %v; want %s", token, id, err, wantName)
		}
	}
	f("alice-0123456789abcdef", "alice", "")
	f("alice-rotated-0123456789", "alice", "")
	f("bob-0123456789abcdef", "bob", "")
	f("bob-0123456789abcdeF", "", "unknown token")
	f("", "", "missing credentials")
	if tk.Len() != 3 {
		t.Errorf("Len = %d", tk.Len())
	}
	if r := tk.Rules(); len(r) != 1 || strings.Join(r["alice"], " ") != "eth_* net_version" {
		t.Errorf("Rules = %v", r)
	}
	a1, _ := tk.Authenticate(&auth.Request{Token: []byte("alice-0123456789abcdef")})
	a2, _ := tk.Authenticate(&auth.Request{Token: []byte("alice-rotated-0123456789")})
	if a1 != a2 {
		t.Error("two tokens of one name give two identities")
	}
}

func TestParseTokensErrors(t *testing.T) {
	f := func(text, want string) {
		t.Helper()
		_, err := auth.ParseTokens(strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	f("", "no tokens")
	f("# only a comment\n", "no tokens")
	f("alice\n", "line 1: want NAME TOKEN")
	f("alice short\n", "shorter than 16")
	f("a 0123456789abcdef\nb 0123456789abcdef\n", "line 2: the token of \"b\" is already")
	f("a 0123456789abcdef eth_*x\n", "may only end")
}

func TestAny(t *testing.T) {
	ok := auth.Func(func(*auth.Request) (*auth.Identity, error) { return &auth.Identity{Name: "ok"}, nil })
	none := auth.Func(func(*auth.Request) (*auth.Identity, error) { return nil, auth.ErrNoCredentials })
	bad := auth.Func(func(*auth.Request) (*auth.Identity, error) { return nil, &auth.Error{Reason: "bad"} })
	other := auth.Func(func(*auth.Request) (*auth.Identity, error) { return nil, errors.New("secret detail") })
	f := func(a auth.Authenticator, wantName, wantReason string) {
		t.Helper()
		id, err := a.Authenticate(&auth.Request{})
		if wantName != "" {
			if err != nil || id.Name != wantName {
				t.Errorf("%v, %v; want %s", id, err, wantName)
			}
			return
		}
		if err == nil || auth.Reason(err) != wantReason {
			t.Errorf("%v, %v; want %q", id, err, wantReason)
		}
	}
	f(auth.Any(none, ok), "ok", "")
	f(auth.Any(bad, ok), "ok", "")
	f(auth.Any(none, none), "", "missing credentials")
	f(auth.Any(none, bad, other), "", "bad")
	unknown := auth.Func(func(*auth.Request) (*auth.Identity, error) { return nil, auth.ErrUnknownToken })
	f(auth.Any(unknown, bad), "", "bad")
	f(auth.Any(unknown, none), "", "unknown token")
	f(auth.Any(other), "", "invalid credentials")
	f(auth.Any(nil, ok), "ok", "")
}

func TestClientCert(t *testing.T) {
	cert := &x509.Certificate{Subject: pkix.Name{CommonName: "alice", Organization: []string{"Acme"}}}
	noCN := &x509.Certificate{Subject: pkix.Name{Organization: []string{"Acme"}, Country: []string{"NL"}}}
	verified := func(c *x509.Certificate) *tls.ConnectionState {
		return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c}, VerifiedChains: [][]*x509.Certificate{{c}}}
	}
	f := func(st *tls.ConnectionState, want string) {
		t.Helper()
		id, err := auth.ClientCert().Authenticate(&auth.Request{TLS: st})
		if want == "" {
			if !errors.Is(err, auth.ErrNoCredentials) {
				t.Errorf("%v, %v; want ErrNoCredentials", id, err)
			}
			return
		}
		if err != nil || id.Name != want || id.Scheme != "mtls" {
			t.Errorf("%+v, %v; want %s", id, err, want)
		}
	}
	f(verified(cert), "alice")
	f(verified(noCN), "O=Acme,C=NL")
	f(nil, "")
	f(&tls.ConnectionState{}, "")
	f(&tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}, "") // requested, not verified
}

func TestIdentityContext(t *testing.T) {
	ctx := context.Background()
	if auth.IdentityOf(ctx) != nil {
		t.Fatal("identity in a bare context")
	}
	id := &auth.Identity{Name: "a"}
	if got := auth.IdentityOf(auth.WithIdentity(ctx, id)); got != id {
		t.Errorf("WithIdentity: %v", got)
	}
	bound, b := auth.Bind(ctx)
	child, cancel := context.WithCancel(bound)
	defer cancel()
	if auth.IdentityOf(child) != nil {
		t.Error("identity before Set")
	}
	b.Set(id)
	if auth.IdentityOf(child) != id {
		t.Error("identity after Set")
	}
}

// TestAuthorize runs the middleware in an engine: each call's identity
// comes from the context it is processed under.
func TestAuthorize(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	for _, name := range []string{"eth_call", "eth_send", "admin_peers", "admin_stop", "net_version", "web3_sha3"} {
		if err := e.Register(name, dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
			return append(dst, `"ok"`...), nil
		})); err != nil {
			t.Fatal(err)
		}
	}
	mw, err := auth.Authorize(auth.Rules{
		"alice": {"eth_*", "!eth_send", "net_version"},
		"root":  {"*", "!admin_*", "admin_peers"},
		"*":     {"web3_*"},
		"":      {"net_version"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Use(mw); err != nil {
		t.Fatal(err)
	}
	f := func(who, method string, allowed bool) {
		t.Helper()
		ctx := context.Background()
		if who != "-" {
			ctx = auth.WithIdentity(ctx, &auth.Identity{Name: who})
		}
		out := string(e.ProcessContext(ctx, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`)))
		if got := strings.Contains(out, `"result":"ok"`); got != allowed {
			t.Errorf("%s calling %s: %s", who, method, out)
		}
		if !allowed && !strings.Contains(out, `"code":-32007,"message":"Forbidden","data":"method \"`+method+`\" is not allowed for this client"`) {
			t.Errorf("%s calling %s: %s", who, method, out)
		}
	}
	f("alice", "eth_call", true)
	f("alice", "eth_send", false)
	f("alice", "net_version", true)
	f("alice", "admin_peers", false)
	f("alice", "web3_sha3", false) // her own rule, not "*"'s
	f("root", "eth_send", true)
	f("root", "admin_stop", false)
	f("root", "admin_peers", true)
	f("carol", "web3_sha3", true)
	f("carol", "eth_call", false)
	f("-", "net_version", true)
	f("-", "eth_call", false)

	// A denied member of a batch fails alone.
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Name: "alice"})
	out := string(e.ProcessContext(ctx, nil, []byte(`[{"jsonrpc":"2.0","id":1,"method":"eth_call"},`+
		`{"jsonrpc":"2.0","id":2,"method":"admin_stop"},{"jsonrpc":"2.0","id":3,"method":"net_version"}]`)))
	for _, want := range []string{`"id":1,"result":"ok"`, `"id":2,"error":{"code":-32007`, `"id":3,"result":"ok"`} {
		if !strings.Contains(out, want) {
			t.Errorf("batch: %s lacks %s", out, want)
		}
	}
}

func TestAuthorizeErrors(t *testing.T) {
	for _, ps := range [][]string{{""}, {"!"}, {"a*b"}, {"**"}} {
		if _, err := auth.Authorize(auth.Rules{"x": ps}); err == nil {
			t.Errorf("%q accepted", ps)
		}
	}
}
