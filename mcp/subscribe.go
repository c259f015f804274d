package mcp

// NOTE: resource subscriptions: resources/subscribe and unsubscribe record
// the session's interest (sessionExt.subs, and the server's index from URI
// to sessions); ResourceUpdated sends notifications/resources/updated to
// each session that subscribed to the URI, outside any call: on HTTP on the
// session's standalone (GET) stream, on a stream transport (stdio) on the
// connection.

import (
	"context"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

func (s *Server) subscribe(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.subscription(ctx, params, dst, true)
}

func (s *Server) unsubscribe(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.subscription(ctx, params, dst, false)
}

func (s *Server) subscription(ctx context.Context, params, dst []byte, on bool) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	if p.URI == nil {
		return dst, invalidParams("a subscription needs a uri")
	}
	uri := string(proto.Text(c.scratch, p.URI, p.URIEsc))
	sess := c.sess
	if sess == nil {
		return emptyResult(dst, c.modern), nil // nobody to notify later
	}
	peer := sessionPeer(ctx, sess)
	x := &s.ext
	x.subMu.Lock()
	if on {
		if x.subs == nil {
			x.subs = map[string]map[*session]*dispatch.Peer{}
		}
		m := x.subs[uri]
		if m == nil {
			m = map[*session]*dispatch.Peer{}
			x.subs[uri] = m
		}
		m[sess] = peer
	} else if m := x.subs[uri]; m != nil {
		delete(m, sess)
		if len(m) == 0 {
			delete(x.subs, uri)
		}
	}
	x.subMu.Unlock()
	return emptyResult(dst, c.modern), nil
}

// sessionPeer returns what sends to the client of sess outside a call: the
// HTTP session's connection, or the stream connection of ctx.
func sessionPeer(ctx context.Context, sess *session) *dispatch.Peer {
	if sess.tr != nil {
		return dispatch.PeerOf(sess.tr.PeerContext())
	}
	return dispatch.PeerOf(ctx)
}

// ResourceUpdated sends notifications/resources/updated for uri to every
// session that subscribed to it and is still open; it returns how many it
// reached.
func (s *Server) ResourceUpdated(uri string) int {
	params := append(encode.AppendString([]byte(`{"uri":`), uri), '}')
	type target struct {
		sess *session
		peer *dispatch.Peer
	}
	var ts []target
	x := &s.ext
	x.subMu.Lock()
	for sess, p := range x.subs[uri] {
		ts = append(ts, target{sess, p})
	}
	x.subMu.Unlock()
	n := 0
	for _, t := range ts {
		if t.peer == nil || t.peer.NotifyRaw(s.baseContext(), "notifications/resources/updated", params) != nil {
			x.subMu.Lock()
			delete(x.subs[uri], t.sess) // gone
			x.subMu.Unlock()
			continue
		}
		n++
	}
	return n + s.notifyListeners(0, uri, "notifications/resources/updated")
}
