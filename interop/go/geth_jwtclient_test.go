package interop

// jetrpc's client calling go-ethereum's own authenticated endpoint (the
// engine API's: node.Config AuthAddr/AuthPort/JWTSecret, served behind
// go-ethereum's JWT handler), with client.JWT over HTTP and WebSocket; a
// wrong secret and a stale token are refused with go-ethereum's reason.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/jetrpc/jetrpc/client"
)

// engineService is served as engine_subtract (the authenticated endpoint
// serves the engine and eth namespaces only).
type engineService struct{}

func (engineService) Subtract(a, b int) int { return a - b }

// startGethAuth starts a go-ethereum node whose authenticated endpoint
// wants JWTs signed with the secret in path; it returns the HTTP and
// WebSocket URLs.
func startGethAuth(t *testing.T, path string) (httpURL, wsURL string) {
	t.Helper()
	n, err := node.New(&node.Config{
		DataDir:  "",
		AuthAddr: "127.0.0.1", AuthPort: 0, AuthVirtualHosts: []string{"*"},
		JWTSecret: path,
		P2P:       p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	n.RegisterAPIs([]rpc.API{{Namespace: "engine", Service: engineService{}, Authenticated: true}})
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n.HTTPAuthEndpoint(), n.WSAuthEndpoint()
}

func TestClientGethJWT(t *testing.T) {
	path, secret := jwtSecret(t)
	httpURL, wsURL := startGethAuth(t, path)
	loaded, err := client.LoadJWTSecret(path)
	if err != nil || string(loaded) != string(secret[:]) {
		t.Fatalf("LoadJWTSecret: %x %v", loaded, err)
	}
	good, _ := client.JWT(secret[:])
	wrong, _ := client.JWT(make([]byte, 32))
	stale := func(_ context.Context, dst []byte) ([]byte, error) {
		// a token of the right secret, made two minutes ago
		return append(dst, staleToken(t, secret[:])...), nil
	}
	c0, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(url string, tok client.TokenFunc) (*client.Client, error) {
		o := &client.Options{Token: tok}
		if strings.HasPrefix(url, "ws") {
			return client.DialWebSocket(c0, url, o)
		}
		return client.DialHTTP(url, o)
	}
	for _, url := range []string{httpURL, wsURL} {
		c, err := dial(url, good)
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		for range 3 {
			var got int
			if err := c.Call(c0, "engine_subtract", []int{42, 23}, &got); err != nil || got != 19 {
				t.Errorf("%s: engine_subtract = %d, %v", url, got, err)
			}
		}
		c.Close()
		for _, bad := range []struct {
			name string
			tok  client.TokenFunc
			want string
		}{{"wrong secret", wrong, "signature is invalid"}, {"stale", stale, "stale token"}, {"none", nil, "missing token"}} {
			c, err := dial(url, bad.tok)
			if err == nil {
				_, err = c.CallRaw(c0, nil, "engine_subtract", []byte(`[42,23]`))
				c.Close()
			}
			var he *client.HTTPError
			if err == nil || !strings.Contains(err.Error(), "401") && !(errors.As(err, &he) && he.StatusCode == 401) ||
				!strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s %s: %v, want 401 and %q", url, bad.name, err, bad.want)
			}
		}
	}
}

// staleToken is an HS256 JWT signed with secret whose iat is two minutes
// ago (go-ethereum accepts 60 seconds).
func staleToken(t *testing.T, secret []byte) string {
	t.Helper()
	enc := base64.RawURLEncoding
	s := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"iat":`+strconv.FormatInt(time.Now().Add(-2*time.Minute).Unix(), 10)+`}`))
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(s))
	return s + "." + enc.EncodeToString(mac.Sum(nil))
}
