package oauth

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/auth"
)

// cache holds validated tokens' identities until their Until. It is keyed
// by a seeded maphash of the token (a tenth of SHA-256's cost) and keeps
// the token to compare on a hit; the seed is random per process, so a
// client cannot aim a token at another's entry, and two tokens whose hashes
// collide only evict each other. It is bounded: when full, the expired
// entries go, then, if that is not enough, arbitrary ones (Go's map
// order), down to seven eighths of the bound, so that the sweep is paid
// once per many insertions.
type cache struct {
	seed maphash.Seed
	mu   sync.RWMutex
	m    map[uint64]*cached
	max  int
}

type cached struct {
	token string
	id    *auth.Identity
}

func (c *cache) init(max int) {
	c.seed = maphash.MakeSeed()
	c.m = make(map[uint64]*cached)
	c.max = max
}

// get returns the identity of token if it is cached and still valid at
// now, and the token's hash for put. It allocates nothing.
func (c *cache) get(token []byte, now time.Time) (*auth.Identity, uint64) {
	h := maphash.Bytes(c.seed, token)
	c.mu.RLock()
	e := c.m[h]
	c.mu.RUnlock()
	if e != nil && e.token == string(token) && now.Before(e.id.Until) {
		return e.id, h
	}
	return nil, h
}

// put remembers id for token, whose hash is h.
func (c *cache) put(h uint64, token []byte, id *auth.Identity, now time.Time) {
	e := &cached{token: string(token), id: id}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[h]; !ok && len(c.m) >= c.max {
		c.evict(now)
	}
	c.m[h] = e
}

// evict makes room; c.mu is held.
func (c *cache) evict(now time.Time) {
	for h, e := range c.m {
		if !now.Before(e.id.Until) {
			delete(c.m, h)
		}
	}
	target := c.max - c.max/8
	if target >= c.max {
		target = c.max - 1
	}
	for h := range c.m {
		if len(c.m) <= target {
			break
		}
		delete(c.m, h)
	}
}

// len returns the number of entries (for tests).
func (c *cache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
