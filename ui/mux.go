package ui

// NOTE: the POSTs to a stream target (tcp://, ws://) share one connection.
// Each call goes out with an id of the proxy's own, so that two pages (or
// two calls with the same id) never mix; its answer comes back with the
// caller's id. A POST waits for the answers to its calls, then gets them as
// the target sent them: one response, or an array for a batch. The proxy
// answers what it cannot forward itself, as a server would: a body that is
// not JSON (-32700), an empty batch or a member that is no request (-32600).
// What the target sends on its own over this connection has nobody to go
// to: notifications are dropped and calls answered -32601.

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// errLost is the answer to calls in flight when the connection drops.
var errLost = errors.New("connection to the target lost")

type mux struct {
	t   *target
	log *slog.Logger

	mu      sync.Mutex
	s       stream // nil until the first POST, and after a failure
	next    uint64
	pending map[uint64]*waiter // by the proxy's id
	closed  bool
}

// waiter is one POST waiting for its answers.
type waiter struct {
	ids  map[uint64][]byte // the proxy's id -> the caller's, raw
	got  [][]byte          // the answers, with the caller's ids
	need int
	done chan error // gets nil once all have come, or the failure
}

func newMux(t *target, log *slog.Logger) *mux {
	return &mux{t: t, log: log, pending: map[uint64]*waiter{}}
}

// do relays one POST body and returns the answer (empty: none due).
func (m *mux) do(ctx context.Context, body []byte) ([]byte, error) {
	var p decode.Parser
	msg, err := p.Parse(body)
	if err != nil {
		return encode.AppendStdError(nil, nil, encode.CodeParseError), nil
	}
	members := []decode.Message{*msg}
	batch := msg.Kind == decode.Batch
	if batch {
		members = p.Batch()
	} else if msg.Reason == decode.ReasonEmptyBatch {
		return encode.AppendStdError(nil, nil, encode.CodeInvalidRequest), nil
	}
	w := &waiter{ids: map[uint64][]byte{}, done: make(chan error, 1)}
	var out, local []byte
	if batch {
		out = append(out, '[')
	}
	s, err := m.stream(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	for i := range members {
		mm := &members[i]
		var one []byte
		switch mm.Kind {
		case decode.Call:
			m.next++
			w.ids[m.next] = bytes.Clone(mm.ID)
			m.pending[m.next] = w
			one = encode.AppendRequest(nil, strconv.AppendUint(nil, m.next, 10), string(mm.Method), mm.Params)
		case decode.Notification:
			one = encode.AppendNotification(nil, string(mm.Method), mm.Params)
		case decode.Result, decode.ErrorResponse:
			continue // an answer to nobody's call
		default:
			local = appendMember(local, encode.AppendStdError(nil, mm.ID, encode.CodeInvalidRequest))
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, one...)
	}
	w.need = len(w.ids)
	m.mu.Unlock()
	if batch {
		out = append(out, ']')
	}
	if len(out) > 2 || !batch && len(out) > 0 {
		if err := s.send(out); err != nil {
			m.fail(s, err)
			m.forget(w)
			return nil, err
		}
	}
	if w.need > 0 {
		select {
		case err = <-w.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		m.forget(w)
		if err != nil {
			return nil, err
		}
	}
	return w.answer(batch, local), nil
}

// answer joins the answers, and the proxy's own ones, as the target would.
func (w *waiter) answer(batch bool, local []byte) []byte {
	if !batch {
		if len(w.got) > 0 {
			return w.got[0]
		}
		return local
	}
	var b []byte
	for _, g := range w.got {
		b = appendMember(b, g)
	}
	if len(local) > 0 {
		b = appendMember(b, local)
	}
	if len(b) == 0 {
		return nil
	}
	return append(append([]byte{'['}, b...), ']')
}

func appendMember(b, m []byte) []byte {
	if len(b) > 0 {
		b = append(b, ',')
	}
	return append(b, m...)
}

// forget removes what is left of w from the pending table.
func (m *mux) forget(w *waiter) {
	m.mu.Lock()
	for id := range w.ids {
		if m.pending[id] == w {
			delete(m.pending, id)
		}
	}
	m.mu.Unlock()
}

// stream returns the shared connection, dialing it if need be.
func (m *mux) stream(ctx context.Context) (stream, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errLost
	}
	if m.s != nil {
		return m.s, nil
	}
	s, err := m.t.dial(ctx)
	if err != nil {
		return nil, err
	}
	m.s = s
	go m.read(s)
	return s, nil
}

// read delivers what the target sends until the stream fails.
func (m *mux) read(s stream) {
	var p decode.Parser
	for {
		msg, err := s.recv()
		if err != nil {
			m.fail(s, err)
			return
		}
		mm, err := p.Parse(msg)
		if err != nil {
			m.log.Debug("ui: target sent something not JSON", "target", m.t.url)
			continue
		}
		if mm.Kind != decode.Batch {
			m.deliver(s, mm)
			continue
		}
		for i, b := 0, p.Batch(); i < len(b); i++ {
			m.deliver(s, &b[i])
		}
	}
}

// deliver hands one message from the target to its waiter.
func (m *mux) deliver(s stream, mm *decode.Message) {
	switch mm.Kind {
	case decode.Call:
		s.send(encode.AppendStdError(nil, mm.ID, encode.CodeMethodNotFound))
		return
	case decode.Result, decode.ErrorResponse:
	default:
		return
	}
	m.mu.Lock()
	if mm.Kind == decode.ErrorResponse && (len(mm.ID) == 0 || string(mm.ID) == "null") {
		m.failOne(mm.Error) // a whole message refused (batch too large, say)
		m.mu.Unlock()
		return
	}
	id, err := strconv.ParseUint(string(mm.ID), 10, 64)
	w := m.pending[id]
	if err != nil || w == nil {
		m.mu.Unlock()
		m.log.Debug("ui: answer to no call", "target", m.t.url, "id", string(mm.ID))
		return
	}
	delete(m.pending, id)
	orig := w.ids[id]
	var b []byte
	if mm.Kind == decode.Result {
		b = encode.AppendResult(nil, orig, mm.Result)
	} else {
		b = appendErrorRaw(nil, orig, mm.Error)
	}
	w.got = append(w.got, b)
	if len(w.got) == w.need {
		w.done <- nil
	}
	m.mu.Unlock()
}

// failOne gives an error response with a null id to the POST waiting, if
// only one is (else nobody can tell whose it is), and ends its wait.
func (m *mux) failOne(errObj []byte) {
	var w *waiter
	for _, x := range m.pending {
		if w != nil && x != w {
			return
		}
		w = x
	}
	if w == nil {
		return
	}
	for id := range w.ids {
		delete(m.pending, id)
	}
	w.got = append(w.got, appendErrorRaw(nil, nil, errObj))
	w.done <- nil
}

// fail drops s, failing the calls waiting on it; the next POST dials again.
func (m *mux) fail(s stream, err error) {
	m.mu.Lock()
	if m.s != s {
		m.mu.Unlock()
		return
	}
	m.s = nil
	failed := map[*waiter]bool{}
	for id, w := range m.pending {
		delete(m.pending, id)
		if !failed[w] {
			failed[w] = true
			w.done <- errLost
		}
	}
	m.mu.Unlock()
	s.close()
	if !m.isClosed() {
		m.log.Info("ui: connection to the target lost", "target", m.t.url, "err", err)
	}
}

func (m *mux) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func (m *mux) close() {
	m.mu.Lock()
	m.closed = true
	s := m.s
	m.mu.Unlock()
	if s != nil {
		m.fail(s, errLost)
	}
}

// appendErrorRaw appends an error response with error, the target's raw
// error object.
func appendErrorRaw(dst, id, errObj []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		id = []byte("null")
	}
	dst = append(dst, id...)
	dst = append(dst, `,"error":`...)
	dst = append(dst, errObj...)
	return append(dst, '}')
}

// errorFor is the proxy's own error response to msg, which could not reach
// the target: -32000 with text, for msg's id when it is one call.
func errorFor(msg []byte, text string) []byte {
	var p decode.Parser
	var id []byte
	if mm, err := p.Parse(msg); err == nil && mm.Kind == decode.Call {
		id = mm.ID
	}
	return encode.AppendError(nil, id, encode.CodeServerError, text, nil)
}
