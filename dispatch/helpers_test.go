package dispatch_test

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// resp is a response parsed with encoding/json; RawMessage keeps id bytes exact.
type resp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func newDemo(tb testing.TB, opts *dispatch.Options, extra ...dispatch.Method) *dispatch.Engine {
	tb.Helper()
	if opts == nil {
		opts = &dispatch.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	e := dispatch.New(opts)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	for _, m := range extra {
		if err := e.RegisterMethod(m); err != nil {
			tb.Fatal(err)
		}
	}
	tb.Cleanup(e.Close)
	return e
}

// parseOne parses a single (non-batch) response, checking the envelope rules.
func parseOne(tb testing.TB, out []byte) resp {
	tb.Helper()
	var r resp
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("response %q is not one JSON object: %v", out, err)
	}
	checkEnvelope(tb, out, r)
	return r
}

func checkEnvelope(tb testing.TB, raw []byte, r resp) {
	tb.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		tb.Fatalf("response %s: %v", raw, err)
	}
	_, hasResult := members["result"]
	_, hasError := members["error"]
	_, hasID := members["id"]
	if r.JSONRPC != "2.0" || hasResult == hasError || !hasID {
		tb.Fatalf("malformed response envelope: %s", raw)
	}
}

func parseBatch(tb testing.TB, out []byte) []resp {
	tb.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal(out, &raws); err != nil {
		tb.Fatalf("response %q is not a JSON array: %v", out, err)
	}
	rs := make([]resp, len(raws))
	for i, raw := range raws {
		rs[i] = parseOne(tb, raw)
	}
	return rs
}

// newConn is the engine's side of a connection, as a transport makes it
// (internal/engineconn); a nil send gives a connection without a peer.
func newConn(e *dispatch.Engine, send engineconn.SendFunc, oneWay bool) *engineconn.Conn {
	return engineconn.NewConn(e, nil, send, oneWay)
}

// peerOf is the peer of c's handlers.
func peerOf(c *engineconn.Conn) *dispatch.Peer { return dispatch.PeerOf(c.Context()) }

// try hands msg to c as a transport's reading goroutine does and runs it
// where it was routed (here, after the fact): it returns the response and
// the route (RouteInline: answered on the reading goroutine).
func try(c *engineconn.Conn, dst, msg []byte) ([]byte, engineconn.Route) {
	dst, r := c.Try(dst, msg)
	if r == nil {
		return dst, engineconn.RouteInline
	}
	route := r.Route()
	return c.Run(dst, r), route
}
