package ui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
)

// ProxyOptions configures a Proxy. A nil *ProxyOptions, and every zero
// field, means the default.
type ProxyOptions struct {
	// Timeout bounds each relayed POST: dialing, sending and waiting for
	// the answers (default 60s; 504 after it).
	Timeout time.Duration
	// MaxMessage is the largest message either way (default
	// frame.DefaultMaxMessage, 4 MiB).
	MaxMessage int
	// Logger gets the connections lost and failed (default slog.Default()).
	Logger *slog.Logger
}

// Proxy relays JSON-RPC to a target server:
//
//   - a POST (one message or a batch) is sent on and answered with the
//     target's answer: to an http(s):// target as a POST, status and body
//     as they come; to a tcp:// or ws(s):// target over one connection that
//     all POSTs share (see the ids in mux.go), 200 with the answer or 204
//     when none is due, 502 when the target cannot be reached;
//   - a WebSocket upgrade gets a target connection of its own, and every
//     message either way is relayed as it is, so that the target's
//     notifications and calls reach the client (an http(s):// target gets
//     each message as a POST, and its answers come back).
//
// The upgrade checks that the Origin, if any, is the request's own host.
type Proxy struct {
	t       *target
	mux     *mux // nil for an HTTP target
	timeout time.Duration
	log     *slog.Logger
	up      websocket.Upgrader

	mu     sync.Mutex
	closed bool
	relays map[*relay]struct{}
	wg     sync.WaitGroup
}

// NewProxy returns a Proxy to target: "http://host:port/path",
// "https://...", "ws://host:port/path", "wss://..." or "tcp://host:port"
// (NDJSON; "?framing=header" or "len32" for the others).
func NewProxy(target string, opts *ProxyOptions) (*Proxy, error) {
	var o ProxyOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = frame.DefaultMaxMessage
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	t, err := parseTarget(target, o.MaxMessage, 30*time.Second)
	if err != nil {
		return nil, err
	}
	p := &Proxy{t: t, timeout: o.Timeout, log: o.Logger, relays: map[*relay]struct{}{}}
	p.up = websocket.Upgrader{ReadBufferSize: 4 << 10, WriteBufferSize: 4 << 10}
	if t.hc == nil {
		p.mux = newMux(t, o.Logger)
	}
	return p, nil
}

// Target returns the target as given.
func (p *Proxy) Target() string { return p.t.url }

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case websocket.IsWebSocketUpgrade(r):
		p.serveWS(w, r)
	case r.Method == http.MethodPost:
		p.servePost(w, r)
	default:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (p *Proxy) servePost(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(p.t.max)))
	if err != nil {
		var tl *http.MaxBytesError
		if errors.As(err, &tl) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "bad request body", http.StatusBadRequest)
		}
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), p.timeout)
	defer cancel()
	if p.mux == nil {
		status, ctype, out, err := p.t.post(ctx, body)
		if err != nil {
			p.failed(w, ctx, err)
			return
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		w.Write(out)
		return
	}
	out, err := p.mux.do(ctx, body)
	switch {
	case err != nil:
		p.failed(w, ctx, err)
	case len(out) == 0:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}
}

// failed answers a POST the target did not answer.
func (p *Proxy) failed(w http.ResponseWriter, ctx context.Context, err error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		http.Error(w, "the target did not answer in time", http.StatusGatewayTimeout)
		return
	}
	http.Error(w, "target "+p.t.url+": "+err.Error(), http.StatusBadGateway)
}

// relay is one client WebSocket and its target stream.
type relay struct {
	wc *websocket.Conn
	s  stream
}

func (p *Proxy) serveWS(w http.ResponseWriter, r *http.Request) {
	wc, err := p.up.Upgrade(w, r, nil) // answers a failed upgrade itself
	if err != nil {
		return
	}
	wc.SetReadLimit(int64(p.t.max))
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	s, err := p.t.dial(ctx)
	cancel()
	if err != nil {
		p.log.Info("ui: cannot reach the target", "target", p.t.url, "err", err)
		wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, clipReason(err.Error())),
			time.Now().Add(time.Second))
		wc.Close()
		return
	}
	rl := &relay{wc: wc, s: s}
	if !p.add(rl) {
		s.close()
		wc.Close()
		return
	}
	defer p.remove(rl)
	go rl.toClient()
	rl.toTarget()
}

// toTarget sends the client's messages on until either side ends.
func (rl *relay) toTarget() {
	for {
		_, msg, err := rl.wc.ReadMessage()
		if err != nil || rl.s.send(msg) != nil {
			break
		}
	}
	rl.s.close()
	rl.wc.Close()
}

// toClient sends the target's messages to the client until either ends.
func (rl *relay) toClient() {
	for {
		msg, err := rl.s.recv()
		if err != nil {
			break
		}
		rl.wc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		if rl.wc.WriteMessage(websocket.TextMessage, msg) != nil {
			break
		}
	}
	rl.wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "target closed"),
		time.Now().Add(time.Second))
	rl.wc.Close()
	rl.s.close()
}

func (p *Proxy) add(rl *relay) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.relays[rl] = struct{}{}
	p.wg.Add(1)
	return true
}

func (p *Proxy) remove(rl *relay) {
	p.mu.Lock()
	delete(p.relays, rl)
	p.mu.Unlock()
	p.wg.Done()
}

// Close closes the shared connection and every relayed WebSocket, and
// waits for the relays to end. POSTs in flight fail with 502.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for rl := range p.relays {
		rl.wc.Close()
	}
	p.mu.Unlock()
	if p.mux != nil {
		p.mux.close()
	}
	p.wg.Wait()
	p.t.close()
	return nil
}

// clipReason fits a close reason in a control frame (123 bytes).
func clipReason(s string) string {
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
