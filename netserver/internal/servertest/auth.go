package servertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/jwtauth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/netserver/guard"
)

// Tokens of the authentication harness (TestAuth).
const (
	AliceToken = "alice-token-0123456789"
	BobToken   = "bob-token-0123456789ab"
)

var jwtSecret = []byte("0123456789abcdef0123456789abcdef")

// TestAuth is the authenticator of these tests: the two tokens, JWTs, and
// client certificates.
func TestAuth(t testing.TB) auth.Authenticator {
	t.Helper()
	tk, err := auth.ParseTokens(strings.NewReader("alice " + AliceToken + "\nbob " + BobToken + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	ja, err := jwtauth.New(jwtSecret, nil)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Any(tk, ja, auth.ClientCert())
}

// SignJWT returns an HS256 token issued at now+skew.
func SignJWT(t testing.TB, skew time.Duration) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iat": jwt.NewNumericDate(time.Now().Add(skew))}).
		SignedString(jwtSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Whoami answers the caller's identity as "name/scheme" (null without
// one); whoami_inline is the same on the reading goroutine.
func Whoami(name string, inline bool) EngineSetup {
	return WithMethod(dispatch.Method{Name: name, Inline: inline, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			id := auth.IdentityOf(ctx)
			if id == nil {
				return append(dst, "null"...), nil
			}
			return encode.AppendString(dst, id.Name+"/"+id.Scheme), nil
		})})
}

// AuthSetup registers whoami and the rules: alice may call all but
// subtract, bob everything, the others only whoami.
func AuthSetup(t testing.TB) []EngineSetup {
	mw, err := auth.Authorize(auth.Rules{"alice": {"*", "!subtract"}, "bob": {"*"}, "*": {"whoami*"}})
	if err != nil {
		t.Fatal(err)
	}
	return []EngineSetup{Whoami("whoami", false), Whoami("whoami_inline", true),
		func(e *dispatch.Engine) error { return e.Use(mw) }}
}

// AuthCall is the authenticating call (rpc.authenticate) with token.
func AuthCall(token string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"rpc.authenticate","params":{"token":"` + token + `"}}`
}

// GateVariant is a guard that the gate benchmarks compare (nil: none).
type GateVariant struct {
	Name  string
	Guard func() *guard.Guard
}

// GateVariants are the guards that the gate benchmarks of netserver
// (stream connections) and nethttp compare: none, TestAuth, a rate limit,
// both.
func GateVariants(b testing.TB) []GateVariant {
	return []GateVariant{
		{"plain", func() *guard.Guard { return nil }},
		{"auth", func() *guard.Guard { return guard.New(&guard.Options{Auth: TestAuth(b)}) }},
		{"rate", func() *guard.Guard { return guard.New(&guard.Options{RateLimit: 1e12, RateBurst: 1 << 30}) }},
		{"auth+rate", func() *guard.Guard {
			return guard.New(&guard.Options{Auth: TestAuth(b), RateLimit: 1e12, RateBurst: 1 << 30})
		}},
	}
}
