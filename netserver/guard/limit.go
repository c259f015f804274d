package guard

// NOTE: the per-client limits (Options.RateLimit, MaxConnsPerIP). A client
// is its identity's name once authenticated, else its address: an IPv4
// address, or the /64 prefix of an IPv6 one (one subscriber's network, as
// a provider hands them out). Each client has a token bucket
// (golang.org/x/time/rate) of RateLimit calls per second, RateBurst deep; a
// message costs its calls (a batch, its members; a response to the
// server's own call nothing).
//
// The table of buckets is bounded: a bucket that is full again (the
// client has been idle long enough to be owed its whole burst) holds no
// state and is dropped by the next sweep, unless a connection holds it. A
// sweep runs at most once per refill time, when a new client arrives; when
// MaxClients buckets are held even so (a spray of addresses), new clients
// share one overflow bucket until some expire, so that the spray as a
// whole gets one client's rate and the clients already known keep theirs.

import (
	"bytes"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"golang.org/x/time/rate"
)

// DefaultMaxClients is the default of Options.MaxClients.
const DefaultMaxClients = 10000

// clientKey identifies a client: its identity's name, or its address.
type clientKey struct {
	name string
	ip   netip.Addr
}

// keyOf returns the key of a client with identity id (nil: none) from
// remote.
func keyOf(id *auth.Identity, remote net.Addr) clientKey {
	if id != nil {
		return clientKey{name: id.Name}
	}
	return clientKey{ip: ipOf(remote)}
}

// ipOf returns the address a client is counted by: IPv4, or an IPv6
// address's /64 prefix; the zero Addr when unknown (stdio).
func ipOf(a net.Addr) netip.Addr {
	var ip netip.Addr
	switch a := a.(type) {
	case nil:
		return ip
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	default:
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			ip = ap.Addr()
		}
	}
	ip = ip.Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			ip = p.Addr()
		}
	}
	return ip.WithZone("")
}

// bucket is one client's token bucket.
type bucket struct {
	key  clientKey
	lim  *rate.Limiter
	refs int // connections holding it (under clients.mu)
}

// allow takes n calls from the bucket, or reports false.
func (c *bucket) allow(now time.Time, n int) bool { return c.lim.AllowN(now, n) }

// clients is the table of a server's clients: their buckets and how many
// connections each address holds.
type clients struct {
	rate       rate.Limit // 0: no rate limit
	burst      int
	max        int // buckets
	perIP      int // connections per address; 0: unlimited
	sweepEvery time.Duration

	mu       sync.Mutex
	m        map[clientKey]*bucket
	overflow *bucket
	sweepAt  time.Time
	conns    map[netip.Addr]int
}

// newClients returns the table for opts, or nil when no per-client limit
// is set.
func newClients(opts *Options) *clients {
	o := opts.or()
	if o.RateLimit <= 0 && o.MaxConnsPerIP <= 0 {
		return nil
	}
	cs := &clients{perIP: max(o.MaxConnsPerIP, 0), max: positive(o.MaxClients, DefaultMaxClients)}
	if o.RateLimit > 0 {
		cs.rate = rate.Limit(o.RateLimit)
		cs.burst = positive(o.RateBurst, max(int(math.Ceil(o.RateLimit)), 1))
		cs.sweepEvery = time.Duration(float64(cs.burst) / o.RateLimit * float64(time.Second))
		cs.sweepEvery = min(max(cs.sweepEvery, 100*time.Millisecond), time.Minute)
		cs.m = make(map[clientKey]*bucket)
		cs.overflow = &bucket{lim: rate.NewLimiter(cs.rate, cs.burst)}
	}
	if cs.perIP > 0 {
		cs.conns = make(map[netip.Addr]int)
	}
	return cs
}

// limited reports whether calls are rate-limited.
func (cs *clients) limited() bool { return cs != nil && cs.rate > 0 }

// get returns the bucket of key, held until put; nil without a rate limit.
func (cs *clients) get(key clientKey, now time.Time) *bucket {
	if !cs.limited() {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.m[key]
	if c == nil {
		if now.After(cs.sweepAt) && (len(cs.m) >= cs.max || len(cs.m) > 64) {
			cs.sweepLocked(now)
		}
		if len(cs.m) >= cs.max {
			return cs.overflow
		}
		c = &bucket{key: key, lim: rate.NewLimiter(cs.rate, cs.burst)}
		cs.m[key] = c
	}
	c.refs++
	return c
}

// put gives back a bucket of get (nil: none).
func (cs *clients) put(c *bucket) {
	if c == nil || c == cs.overflow {
		return
	}
	cs.mu.Lock()
	c.refs--
	cs.mu.Unlock()
}

// sweepLocked drops the buckets nobody holds that are full again.
func (cs *clients) sweepLocked(now time.Time) {
	full := float64(cs.burst)
	for k, c := range cs.m {
		if c.refs == 0 && c.lim.TokensAt(now) >= full {
			delete(cs.m, k)
		}
	}
	cs.sweepAt = now.Add(cs.sweepEvery)
}

// len returns the number of buckets held.
func (cs *clients) len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.m)
}

// retryAfter is how many whole seconds c needs to afford n calls (at least
// 1; a message of more calls than the burst never fits: the time to refill
// the whole bucket).
func (cs *clients) retryAfter(c *bucket, n int, now time.Time) int {
	need := float64(min(n, cs.burst)) - c.lim.TokensAt(now)
	return max(int(math.Ceil(need/float64(cs.rate))), 1)
}

// openConn counts a new connection from ip, or reports false when ip
// holds MaxConnsPerIP already. A true result must be matched by closeConn.
func (cs *clients) openConn(ip netip.Addr) bool {
	if cs == nil || cs.perIP == 0 {
		return true
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.conns[ip] >= cs.perIP {
		return false
	}
	cs.conns[ip]++
	return true
}

func (cs *clients) closeConn(ip netip.Addr) {
	if cs == nil || cs.perIP == 0 {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if n := cs.conns[ip]; n > 1 {
		cs.conns[ip] = n - 1
	} else {
		delete(cs.conns, ip)
	}
}

var methodMember = []byte(`"method"`)

// countCalls is what a message costs: the members of a batch, 1 for a
// request, 0 for a response (no "method" member: the client answering a
// call of the server's). It does not validate msg; the engine does.
func countCalls(msg []byte) int {
	i := 0
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\r' || msg[i] == '\n') {
		i++
	}
	if i < len(msg) && msg[i] == '[' {
		var it decode.Iter
		n := 0
		if it.Reset(msg[i:]) {
			for it.Next() {
				n++
			}
		}
		return max(n, 1)
	}
	if bytes.Contains(msg, methodMember) {
		return 1
	}
	return 0
}

// positive is n, or def when n <= 0.
func positive(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
