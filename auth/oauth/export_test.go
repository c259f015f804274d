package oauth

import (
	"github.com/jetrpc/jetrpc/auth"
)

// ValidateUncached validates token as a cache miss does (for benchmarks
// of the cold path); the result is cached as usual.
func (v *Validator) ValidateUncached(token []byte) (*auth.Identity, error) {
	_, h := v.cache.get(token, v.now())
	return v.validate(token, h, v.now())
}

// CacheLen returns the number of cached tokens.
func (v *Validator) CacheLen() int { return v.cache.len() }
