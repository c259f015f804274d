package interop

// go-ethereum's rpc client authenticating as it does against its own
// engine API: rpc.WithHTTPAuth(node.NewJWTAuth(secret)) signs a fresh HS256
// JWT (iat now) for each HTTP request and for the WebSocket handshake,
// against jetrpc serve --jwt-secret FILE.

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
)

// jwtSecret writes a secret file as go-ethereum writes one (0x and 64 hex
// digits) and returns its path and bytes.
func jwtSecret(t *testing.T) (string, [32]byte) {
	t.Helper()
	var secret [32]byte
	for i := range secret {
		secret[i] = byte(0xa0 + i)
	}
	path := filepath.Join(t.TempDir(), "jwt.hex")
	if err := os.WriteFile(path, []byte("0x"+hex.EncodeToString(secret[:])), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, secret
}

func TestGethJWT(t *testing.T) {
	path, secret := jwtSecret(t)
	s := startServer(t, "--jwt-secret", path)
	auth := rpc.WithHTTPAuth(node.NewJWTAuth(secret))
	for _, url := range []string{"http://" + s.HTTP, "ws://" + s.HTTP + "/ws"} {
		t.Run(strings.SplitN(url, ":", 2)[0], func(t *testing.T) {
			c, err := rpc.DialOptions(ctx(t), url, auth)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			equal(t, "subtract(42, 23)", call[int](t, c, "subtract", 42, 23), 19)
			testBatch(t, c)
			testCalls(t, c)

			// The same client without the secret is refused: 401 over
			// HTTP, the handshake over WebSocket.
			bare, err := rpc.DialOptions(ctx(t), url)
			if err == nil {
				defer bare.Close()
				var v int
				err = bare.CallContext(ctx(t), &v, "subtract", 42, 23)
			}
			if err == nil || !strings.Contains(err.Error(), "401") {
				t.Errorf("without the secret: %v, want a 401", err)
			}
			// A secret of its own is refused too.
			other := secret
			other[0] ^= 1
			wrong, err := rpc.DialOptions(ctx(t), url, rpc.WithHTTPAuth(node.NewJWTAuth(other)))
			if err == nil {
				defer wrong.Close()
				var v int
				err = wrong.CallContext(ctx(t), &v, "subtract", 42, 23)
			}
			if err == nil || !strings.Contains(err.Error(), "401") {
				t.Errorf("with another secret: %v, want a 401", err)
			}
		})
	}
}
