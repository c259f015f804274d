package gateway_test

import (
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/gateway/cache"
)

// memStore is a tiny cache.Store for the tests (package gateway/cache has
// the real ones).
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) Get(dst, key []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[string(key)]
	if !ok {
		return dst, false
	}
	return append(dst, v...), true
}

func (s *memStore) Set(key, result []byte, ttl time.Duration) {
	s.mu.Lock()
	s.m[string(key)] = append([]byte(nil), result...)
	s.mu.Unlock()
}

// methodPolicy caches the listed methods' answers, except null ones.
type methodPolicy map[string]time.Duration

func (p methodPolicy) TTL(method, params []byte) (time.Duration, bool) {
	ttl, ok := p[string(method)]
	return ttl, ok
}

func (p methodPolicy) Keep(method, params, result []byte) bool { return string(result) != "null" }

var _ cache.Store = (*memStore)(nil)
var _ cache.Policy = methodPolicy(nil)

// TestCache: cached calls do not reach the upstream, single or in a
// batch; the policy's Keep and errors are never cached; params are part
// of the key.
func TestCache(t *testing.T) {
	u := newUpstream(t, "a")
	gw := newGateway(t, &gateway.Options{Default: group(t, "a", nil, u), Cache: newMemStore(),
		CachePolicy: methodPolicy{"eth_chainId": time.Minute, "echo": time.Minute, "fail": time.Minute}})
	e := engine(t, gw)
	f := func(in, want string) {
		t.Helper()
		if got := string(e.Process(nil, []byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	for i := range 3 {
		f(`{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"eth_chainId"}`, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"result":"a"}`)
		f(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"echo","params":[5]}]`,
			`[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"result":[5]}]`)
		f(`{"jsonrpc":"2.0","id":3,"method":"echo","params":[6]}`, `{"jsonrpc":"2.0","id":3,"result":[6]}`)
		f(`{"jsonrpc":"2.0","id":4,"method":"echo"}`, `{"jsonrpc":"2.0","id":4,"result":null}`)
		f(`{"jsonrpc":"2.0","id":5,"method":"fail","params":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`)
	}
	if n := u.count("eth_chainId"); n != 1 {
		t.Errorf("eth_chainId reached the upstream %d times, want 1", n)
	}
	// Hits: eth_chainId 2 single and 3 in batches, echo [5] 2, echo [6] 2;
	// echo's null answer (Keep refused it) and fail's error never.
	if hits := gw.Stats().Routes[0].CacheHits; hits != 9 {
		t.Errorf("%d cache hits, want 9", hits)
	}
}
