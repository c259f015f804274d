// Package natskv is a gateway/cache Store shared by the replicas of a
// gateway through a NATS JetStream key-value bucket: an answer one replica
// cached is a hit on every other. It is a package of its own so that a
// gateway without it links no NATS code.
//
// Layout: bucket Options.Bucket, one key per cached call, named by the
// SHA-256 of cache.Key in base64url (43 characters of [A-Za-z0-9_-], valid
// for any method and params, however long and whatever bytes they hold).
// The value is
//
//	version (1) | expiry, Unix ns (8) | key length (4) | key | result
//
// A Get checks the stored key byte for byte and the expiry, so an expired
// entry is never returned and two keys are never confused.
//
// Expiry: each entry carries its own expiry time in its value, and the
// bucket's MaxAge (Options.MaxAge) removes it from the server at the
// latest; a TTL longer than MaxAge is cut to it. Per-message TTLs
// (JetStream 2.11's AllowMsgTTL) would drop entries exactly, but a KV Put
// cannot carry one (only Create, which fails on an existing key) and older
// servers lack it; an expiry in the value works on every JetStream server,
// and a Set stays one publish.
//
// The bucket keeps at most Options.MaxBytes; when full, the oldest
// entries go (the stream's discard policy is set to old: a cache prefers
// new answers to refused writes).
//
// Speed and failure: a Set is one fire-and-forget publish (no round trip
// on the gateway's path); a Get that misses the local front cache is one
// request to the server, bounded by Options.Timeout. While the connection
// is down, Get misses at once and Set keeps only the front copy: a NATS
// outage costs hits, never an error to a caller. The connection reconnects
// by itself.
package natskv

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of Options.
const (
	DefaultBucket     = "jetrpc_cache"
	DefaultMaxAge     = time.Hour
	DefaultMaxBytes   = 1 << 30
	DefaultTimeout    = 100 * time.Millisecond
	DefaultFrontBytes = 16 << 20
)

// Options configure a Store; nil and zero fields give the defaults.
type Options struct {
	// Bucket names the key-value bucket (default DefaultBucket).
	Bucket string
	// MaxAge is the longest an entry is kept (default DefaultMaxAge).
	MaxAge time.Duration
	// MaxBytes bounds the bucket (default DefaultMaxBytes).
	MaxBytes int64
	// Replicas is the bucket's JetStream replication (default 1).
	Replicas int
	// File keeps the bucket on disk; by default it is in the servers'
	// memory (a cache need not survive a restart).
	File bool
	// Timeout bounds one Get from the server (default DefaultTimeout), and
	// creating the bucket takes at most 50 times it.
	Timeout time.Duration
	// FrontBytes is the budget of the local front cache of recent hits and
	// sets (default DefaultFrontBytes; negative: none).
	FrontBytes int
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Store is a cache.Store on a JetStream key-value bucket. It is safe for
// concurrent use. A hit in its front cache does not allocate; a hit from
// the server does (the NATS client's request).
type Store struct {
	nc      *nats.Conn
	own     bool
	kv      jetstream.KeyValue
	subject string // "$KV.<bucket>."
	front   *cache.Memory
	maxAge  time.Duration
	timeout time.Duration
	now     func() time.Time
	bufs    sync.Pool // *[]byte
}

var _ cache.Store = (*Store)(nil)

// Connect connects to the NATS servers of url (comma-separated, as
// nats.Connect takes them) and returns a Store on them, which Close
// disconnects.
func Connect(ctx context.Context, url string, opts *Options) (*Store, error) {
	nc, err := nats.Connect(url, nats.Name("jetrpc gateway cache"), nats.MaxReconnects(-1),
		nats.ReconnectWait(500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	s, err := New(ctx, nc, opts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	s.own = true
	return s, nil
}

// New returns a Store on the connection nc, creating its bucket or
// updating its settings.
func New(ctx context.Context, nc *nats.Conn, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Bucket == "" {
		o.Bucket = DefaultBucket
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	frontNow := o.Now // nil: the front cache's own monotonic clock
	if o.Now == nil {
		o.Now = time.Now
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 50*o.Timeout)
	defer cancel()
	storage := jetstream.MemoryStorage
	if o.File {
		storage = jetstream.FileStorage
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: o.Bucket, Description: "jetrpc gateway cache", History: 1,
		TTL: o.MaxAge, MaxBytes: o.MaxBytes, Storage: storage, Replicas: o.Replicas,
	})
	if err != nil {
		return nil, errors.Join(errors.New("natskv: bucket "+o.Bucket), err)
	}
	if err := discardOld(ctx, js, "KV_"+o.Bucket); err != nil {
		return nil, errors.Join(errors.New("natskv: bucket "+o.Bucket), err)
	}
	s := &Store{nc: nc, kv: kv, subject: "$KV." + o.Bucket + ".", maxAge: o.MaxAge,
		timeout: o.Timeout, now: o.Now}
	if o.FrontBytes >= 0 {
		if o.FrontBytes == 0 {
			o.FrontBytes = DefaultFrontBytes
		}
		s.front = cache.NewMemory(&cache.MemoryOptions{MaxBytes: o.FrontBytes, Now: frontNow})
	}
	return s, nil
}

// discardOld makes a full bucket drop its oldest entries rather than
// refuse new ones.
func discardOld(ctx context.Context, js jetstream.JetStream, stream string) error {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	cfg := st.CachedInfo().Config
	if cfg.Discard == jetstream.DiscardOld {
		return nil
	}
	cfg.Discard = jetstream.DiscardOld
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// Close closes the connection if Connect opened it.
func (s *Store) Close() {
	if s.own {
		s.nc.Close()
	}
}

// name is the bucket key of a cache key.
func name(key []byte) string {
	sum := sha256.Sum256(key)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

const (
	version   = 1
	valHeader = 1 + 8 + 4
)

// Get appends the result kept under key to dst: from the front cache, or
// else from the bucket (then the front keeps it too).
func (s *Store) Get(dst, key []byte) ([]byte, bool) {
	if s.front != nil {
		if out, ok := s.front.Get(dst, key); ok {
			return out, true
		}
	}
	if !s.nc.IsConnected() {
		return dst, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	e, err := s.kv.Get(ctx, name(key))
	if err != nil {
		return dst, false
	}
	v := e.Value()
	if len(v) < valHeader || v[0] != version {
		return dst, false
	}
	exp := int64(binary.LittleEndian.Uint64(v[1:]))
	kl := int(binary.LittleEndian.Uint32(v[9:]))
	if len(v) < valHeader+kl || string(v[valHeader:valHeader+kl]) != string(key) {
		return dst, false
	}
	left := time.Duration(exp - s.now().UnixNano())
	if left <= 0 {
		return dst, false
	}
	result := v[valHeader+kl:]
	if s.front != nil {
		s.front.Set(key, result, left)
	}
	return append(dst, result...), true
}

// Set keeps result under key for ttl (at most MaxAge), in the front cache
// and, with one publish that waits for nothing, in the bucket.
func (s *Store) Set(key, result []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	if ttl > s.maxAge {
		ttl = s.maxAge
	}
	if s.front != nil {
		s.front.Set(key, result, ttl)
	}
	if !s.nc.IsConnected() {
		return
	}
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	// One buffer: the subject, then the value. Publish copies both into
	// the connection's buffer before it returns.
	b := append((*bp)[:0], s.subject...)
	sum := sha256.Sum256(key)
	b = base64.RawURLEncoding.AppendEncode(b, sum[:])
	n := len(b)
	b = append(b, version)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.now().Add(ttl).UnixNano()))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(key)))
	b = append(append(b, key...), result...)
	_ = s.nc.Publish(bytesconv.B2S(b[:n]), b[n:])
	if cap(b) <= 1<<20 {
		*bp = b
		s.bufs.Put(bp)
	}
}

// Flush waits until the server has received every Set so far (tests, and
// a replica that shuts down), at most until ctx ends or, when it has no
// deadline, 50 times Options.Timeout.
func (s *Store) Flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 50*s.timeout)
		defer cancel()
	}
	return s.nc.FlushWithContext(ctx)
}
