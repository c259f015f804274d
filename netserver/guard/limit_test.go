package guard

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

const subtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`

// addrString is an address known by its string only, as net/http gives it.
type addrString string

func (a addrString) Network() string { return "tcp" }
func (a addrString) String() string  { return string(a) }

func TestCountCalls(t *testing.T) {
	f := func(msg string, want int) {
		t.Helper()
		if got := countCalls([]byte(msg)); got != want {
			t.Errorf("countCalls(%s) = %d, want %d", msg, got, want)
		}
	}
	f(subtract, 1)
	f(`{"jsonrpc":"2.0","method":"update"}`, 1)
	f(`{"jsonrpc":"2.0","id":1,"result":2}`, 0) // a response to the server's call
	f(` [`+subtract+`,`+subtract+`, {"jsonrpc":"2.0","method":"x"}]`, 3)
	f(`[]`, 1)
	f(`[1,[2,3],{"a":[4]}]`, 3)
	f(`{"jsonrpc"`, 0)
	f(``, 0)
}

func TestIPOf(t *testing.T) {
	f := func(a net.Addr, want string) {
		t.Helper()
		if got := ipOf(a).String(); got != want {
			t.Errorf("ipOf(%v) = %s, want %s", a, got, want)
		}
	}
	f(&net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 1}, "192.0.2.7")
	f(&net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 1}, "192.0.2.7")
	f(&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:3:4:5:6"), Port: 1}, "2001:db8:1:2::")
	f(addrString("[2001:db8:1:2::9]:80"), "2001:db8:1:2::")
	f(addrString("198.51.100.1:5"), "198.51.100.1")
	f(nil, "invalid IP")
}

// TestClientsBounded sprays the bucket table with 100,000 source
// addresses (faked, as a remote address a transport would hand over):
// it never holds more than MaxClients, the known clients keep their own
// buckets, the spray shares the overflow one, and idle buckets expire.
func TestClientsBounded(t *testing.T) {
	cs := newClients(&Options{RateLimit: 10, RateBurst: 10, MaxClients: 100})
	now := time.Unix(1_700_000_000, 0)
	addr := func(i int) net.Addr {
		return &net.TCPAddr{IP: netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).AsSlice(), Port: 1}
	}
	held := cs.get(keyOf(nil, addr(0)), now) // an open connection's
	for i := 1; i <= 100_000; i++ {
		b := cs.get(keyOf(nil, addr(i)), now)
		b.allow(now, 1)
		cs.put(b)
		if n := cs.len(); n > 100 {
			t.Fatalf("after %d addresses: %d buckets", i, n)
		}
	}
	if b := cs.get(keyOf(nil, addr(0)), now); b != held {
		t.Error("the held client lost its bucket")
	} else {
		cs.put(b)
	}
	if b := cs.get(keyOf(nil, addr(200_000)), now); b != cs.overflow {
		t.Error("a new client during the spray did not get the overflow bucket")
	}
	// Idle long enough to be full again: the spray's buckets expire, the
	// held one stays.
	later := now.Add(2 * time.Second)
	b := cs.get(keyOf(nil, addr(300_000)), later)
	if b == cs.overflow {
		t.Error("no room after the buckets expired")
	}
	cs.put(b)
	if n := cs.len(); n != 2 {
		t.Errorf("%d buckets after the sweep, want 2 (held and new)", n)
	}
	cs.put(held)
}

// TestCost: Options.Cost prices a request for the rate limit (Calls), on
// the net/http path too (AdmitStd): with a burst of 10, one request that
// costs 10 uses the bucket up.
func TestCost(t *testing.T) {
	g := New(&Options{RateLimit: 0.001, RateBurst: 10, Cost: func(msg []byte) int {
		if strings.Contains(string(msg), `"sleep"`) {
			return 10
		}
		return 1
	}})
	const sleep = `{"jsonrpc":"2.0","method":"sleep","params":[0],"id":1}`
	if g.Calls([]byte(sleep)) != 10 || g.Calls([]byte(subtract)) != 1 {
		t.Fatalf("Calls: sleep %d, subtract %d", g.Calls([]byte(sleep)), g.Calls([]byte(subtract)))
	}
	admit := func(msg string) int {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(msg))
		if _, _, ok := g.AdmitStd(w, r, addrString("192.0.2.1:1000"), []byte(msg)); ok {
			return http.StatusOK
		}
		return w.Code
	}
	if got := admit(sleep); got != http.StatusOK {
		t.Errorf("the first sleep: %d", got)
	}
	if got := admit(subtract); got != http.StatusTooManyRequests {
		t.Errorf("a call after a sleep that cost the burst: %d, want 429", got)
	}
}
