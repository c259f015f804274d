package natskv

import "github.com/jetrpc/jetrpc/gateway/cache"

// Peek is Get limited to the front cache: it never asks the NATS server.
func (s *Store) Peek(dst, key []byte) ([]byte, bool) {
	if s.front == nil {
		return dst, false
	}
	return s.front.Get(dst, key)
}

var _ cache.Peeker = (*Store)(nil)
