// Package cache holds the gateway's answer cache: where answers are kept
// (a Store: in memory, or shared by replicas through NATS JetStream's
// key-value store) and which calls may be answered from it (a Policy: the
// operator's per-method TTLs, and the built-in ethereum policy that follows
// the finalized block).
//
// The gateway asks the Policy before it forwards a call, looks the call up
// in the Store under Key(method, params), and after the upstream answered
// asks the Policy again whether that answer may be kept. Only results are
// cached, never an error.
package cache

import "time"

// Store keeps cached results by key. Implementations are safe for
// concurrent use; Get must not allocate on a hit in steady state (it
// appends to dst).
type Store interface {
	// Get appends the result kept under key to dst; ok is false when there
	// is none or it expired.
	Get(dst, key []byte) (out []byte, ok bool)
	// Set keeps result under key for ttl. It copies both; it may drop the
	// entry (a full store, a result too large).
	Set(key, result []byte, ttl time.Duration)
}

// Policy says which calls may be answered from the cache. Implementations
// are safe for concurrent use and do not allocate per call.
type Policy interface {
	// TTL reports whether a call of method with params (raw JSON, nil when
	// absent) may be answered from the cache, and for how long its answer
	// may be kept.
	TTL(method, params []byte) (ttl time.Duration, ok bool)
	// Keep reports whether the upstream's result for a call TTL allowed
	// may be kept (an ethereum "null" for a block not yet seen may not).
	Keep(method, params, result []byte) bool
}

// Key appends the cache key of a call to dst: the method, a 0 byte, then
// the params as they came (two calls whose params differ in spacing are two
// keys).
func Key(dst, method, params []byte) []byte {
	dst = append(dst, method...)
	dst = append(dst, 0)
	return append(dst, params...)
}
