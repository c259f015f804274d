// Package natsstore is a streamstore.Store on NATS JetStream, shared by the
// replicas of a server (MCP's Streamable HTTP endpoint, an A2A agent): the
// events of every resumable stream are messages of one JetStream stream,
// and each session's state is a key of one JetStream key-value bucket.
// With it, any replica can adopt a session another one opened, resume its
// streams and follow the events the other replica goes on appending
// (streamstore.SessionStore, streamstore.Follower).
//
// Layout (PREFIX is Options.Prefix):
//
//	stream  Options.Stream, subjects PREFIX.ev.>
//	        event Seq of stream S (hex) of session ID:
//	        subject PREFIX.ev.TOKEN.S, headers Mcp-Seq and Mcp-Final,
//	        data the SSE bytes; deduplicated by Nats-Msg-Id ID/S/Seq
//	bucket  Options.Bucket, key TOKEN: the session's state
//
// where TOKEN is the session id with its dot as '=' (an id of
// mcphttp.SessionIDs; any other is "=" and its base64url). Events are kept for
// Options.MaxAge, at most Options.MaxEvents per stream; session states for
// Options.SessionTTL after they were saved.
//
// An append waits for JetStream's acknowledgement, so an event the
// endpoint wrote to a client is stored, whatever happens to the replica
// afterwards.
package natsstore

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Options configure a Store; a nil *Options and every zero field mean the
// default.
type Options struct {
	// Stream names the JetStream stream of the events (default MCP_EVENTS).
	Stream string
	// Bucket names the key-value bucket of the session states (default
	// MCP_SESSIONS).
	Bucket string
	// Prefix starts the events' subjects (default "mcp").
	Prefix string
	// MaxAge is how long events are kept (default 1 hour).
	MaxAge time.Duration
	// MaxEvents bounds the events kept of one event stream (default
	// 10000); past it, the oldest are dropped.
	MaxEvents int64
	// MaxBytes bounds the events kept in all (default 1 GiB).
	MaxBytes int64
	// SessionTTL is how long a session's state is kept after it was saved
	// (default 24 hours): past it, replicas no longer adopt the session.
	SessionTTL time.Duration
	// Replicas is the JetStream replication of the stream and the bucket
	// (default 1; 3 on a cluster of three servers).
	Replicas int
	// Memory keeps them in memory instead of files.
	Memory bool
	// Timeout bounds each operation (default 5 s).
	Timeout time.Duration
}

// Store is the EventStore. Its methods are safe for concurrent use.
type Store struct {
	nc      *nats.Conn
	own     bool // Close closes nc
	js      jetstream.JetStream
	stream  jetstream.Stream
	kv      jetstream.KeyValue
	name    string
	prefix  string
	timeout time.Duration
}

var (
	_ streamstore.Store        = (*Store)(nil)
	_ streamstore.SessionStore = (*Store)(nil)
	_ streamstore.Follower     = (*Store)(nil)
)

// Connect connects to the NATS servers of url (comma-separated, as
// nats.Connect takes them) and returns a Store on them, which Close
// disconnects.
func Connect(ctx context.Context, url string, opts *Options) (*Store, error) {
	nc, err := nats.Connect(url, nats.Name("jetrpc mcp"), nats.MaxReconnects(-1))
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

// New returns a Store on the connection nc, creating (or updating) its
// stream and bucket.
func New(ctx context.Context, nc *nats.Conn, opts *Options) (*Store, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Stream = orString(o.Stream, "MCP_EVENTS")
	o.Bucket = orString(o.Bucket, "MCP_SESSIONS")
	o.Prefix = orString(o.Prefix, "mcp")
	o.MaxAge = orDur(o.MaxAge, time.Hour)
	o.SessionTTL = orDur(o.SessionTTL, 24*time.Hour)
	o.Timeout = orDur(o.Timeout, 5*time.Second)
	if o.MaxEvents <= 0 {
		o.MaxEvents = 10000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 1 << 30
	}
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	storage := jetstream.FileStorage
	if o.Memory {
		storage = jetstream.MemoryStorage
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: o.Stream, Subjects: []string{o.Prefix + ".ev.>"}, Storage: storage, Replicas: o.Replicas,
		MaxAge: o.MaxAge, MaxBytes: o.MaxBytes, MaxMsgsPerSubject: o.MaxEvents, Discard: jetstream.DiscardOld,
		Duplicates: 2 * time.Minute, Description: "jetrpc: the events of resumable streams (" + o.Prefix + ")",
	})
	if err != nil {
		return nil, err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: o.Bucket, TTL: o.SessionTTL, Storage: storage, Replicas: o.Replicas, History: 1,
		Description: "jetrpc: the states of sessions or tasks (" + o.Prefix + ")",
	})
	if err != nil {
		return nil, err
	}
	return &Store{nc: nc, js: js, stream: st, kv: kv, name: o.Stream, prefix: o.Prefix, timeout: o.Timeout}, nil
}

func orString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Close disconnects from NATS when the Store made the connection.
func (s *Store) Close() {
	if s.own {
		s.nc.Close()
	}
}

// token is a session id as one subject token and key.
func token(session string) string {
	dots := 0
	for i := 0; i < len(session); i++ {
		switch c := session[i]; {
		case c == '.':
			dots++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			dots = 2
		}
	}
	if dots > 1 || session == "" || session[0] == '.' || session[len(session)-1] == '.' {
		return "=" + base64.RawURLEncoding.EncodeToString([]byte(session))
	}
	return strings.Replace(session, ".", "=", 1)
}

func (s *Store) subject(key streamstore.Key) string {
	return s.prefix + ".ev." + token(key.Session) + "." + strconv.FormatUint(key.Stream, 16)
}

const (
	hdrSeq   = "Mcp-Seq"
	hdrFinal = "Mcp-Final"
)

func (s *Store) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// Append publishes ev and waits for JetStream to store it.
func (s *Store) Append(ctx context.Context, key streamstore.Key, ev streamstore.Event) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	seq := strconv.FormatUint(ev.Seq, 10)
	m := &nats.Msg{Subject: s.subject(key), Data: ev.Data, Header: nats.Header{hdrSeq: []string{seq}}}
	if ev.Final {
		m.Header[hdrFinal] = []string{"1"}
	}
	_, err := s.js.PublishMsg(ctx, m, jetstream.WithMsgID(key.Session+"/"+strconv.FormatUint(key.Stream, 16)+"/"+seq))
	return err
}

// event reads a stored message.
func event(m jetstream.Msg) (streamstore.Event, bool) {
	seq, err := strconv.ParseUint(m.Headers().Get(hdrSeq), 10, 64)
	return streamstore.Event{Seq: seq, Data: m.Data(), Final: m.Headers().Get(hdrFinal) != ""}, err == nil
}

// Replay yields the stored events of the stream after after: it reads
// the stream's subject from its first message to the last one stored when
// Replay began.
func (s *Store) Replay(ctx context.Context, key streamstore.Key, after uint64, yield func(ev streamstore.Event) error) (bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	subj := s.subject(key)
	last, err := s.stream.GetLastMsgForSubject(ctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if seq, err := strconv.ParseUint(last.Header.Get(hdrSeq), 10, 64); err == nil && seq <= after {
		return true, nil // nothing after
	}
	err = s.read(ctx, subj, func(m jetstream.Msg) (bool, error) {
		ev, ok := event(m)
		if ok && ev.Seq > after {
			if err := yield(ev); err != nil {
				return true, err
			}
		}
		md, err := m.Metadata()
		return err != nil || md.Sequence.Stream >= last.Sequence, err
	})
	return true, err
}

// Follow yields the events of the stream after after, stored and live,
// until the final one.
func (s *Store) Follow(ctx context.Context, key streamstore.Key, after uint64, yield func(ev streamstore.Event) error) error {
	return s.read(ctx, s.subject(key), func(m jetstream.Msg) (bool, error) {
		ev, ok := event(m)
		if !ok || ev.Seq <= after {
			return false, nil
		}
		if err := yield(ev); err != nil {
			return true, err
		}
		return ev.Final, nil
	})
}

// read delivers the messages of subj in order, from the first one, to
// each until it reports done (or an error), or ctx ends.
func (s *Store) read(ctx context.Context, subj string, each func(m jetstream.Msg) (done bool, err error)) error {
	cons, err := s.stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subj}, DeliverPolicy: jetstream.DeliverAllPolicy, InactiveThreshold: time.Minute,
	})
	if err != nil {
		return err
	}
	it, err := cons.Messages()
	if err != nil {
		return err
	}
	defer it.Stop()
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if done, err := each(m); done || err != nil {
			return err
		}
	}
}

// Forget purges the session's events and state.
func (s *Store) Forget(ctx context.Context, session string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	tok := token(session)
	err := s.stream.Purge(ctx, jetstream.WithPurgeSubject(s.prefix+".ev."+tok+".>"))
	if kerr := s.kv.Purge(ctx, tok); kerr != nil && !errors.Is(kerr, jetstream.ErrKeyNotFound) && err == nil {
		err = kerr
	}
	return err
}

// SaveSession stores the session's state.
func (s *Store) SaveSession(ctx context.Context, session string, state []byte) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, err := s.kv.Put(ctx, token(session), state)
	return err
}

// LoadSession returns the session's state.
func (s *Store) LoadSession(ctx context.Context, session string) ([]byte, bool, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	e, err := s.kv.Get(ctx, token(session))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return e.Value(), true, nil
}
