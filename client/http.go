package client

import (
	"bytes"
	"context"
	"errors"
	neturl "net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/internal/httpc"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// An HTTP client opens up to maxConns connections; a call waits up to
// maxConnWait for a free one.
const (
	maxConns    = 512
	maxConnWait = 30 * time.Second
)

// DialHTTP returns a client that POSTs each call, notification and batch to
// url ("http://host:port/path", or https with Options.TLS or the system's
// roots) on up to 512 keep-alive connections; more concurrent calls wait
// for a free one. No connection is made before the first call. It speaks
// HTTP/1.1 with jetrpc's own small client (internal/httpc), on net and
// crypto/tls alone.
//
// A call waits for its POST; a call whose context can be cancelled runs the
// POST on a goroutine of its own so that it can return at once (that
// goroutine ends when the server answers or the context's deadline
// passes). Notify waits for the POST, bounded by the context's deadline. A
// status other than 200 or 204 fails the calls of that POST with an
// *HTTPError; a call the reply does not answer fails with ErrNoResponse, or
// with the error of a reply that is one error response with id null. A
// server that closes the connection before answering (again on a fresh
// one) fails them with ErrConnectionClosed. Messages the server sends on
// its own cannot arrive over plain HTTP.
func DialHTTP(url string, opts *Options) (*Client, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("client: DialHTTP: want an http or https URL with a host, got " + url)
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	hdr, _ := headerLines(opts.header())
	hc, err := httpc.New(u, httpc.Options{
		TLS:         opts.tlsConfig(),
		UserAgent:   userAgent,
		Header:      "Content-Type: application/json\r\n" + hdr,
		MaxConns:    maxConns,
		MaxConnWait: maxConnWait,
		IdleTimeout: opts.idleTimeout(),
		MaxBody:     opts.maxMessage(),
		// CompressMin < 0: no "Accept-Encoding: gzip" either.
		NoCompression: opts.compressMin() < 0,
	})
	if err != nil {
		return nil, err
	}
	t := &httpTransport{hc: hc, max: opts.maxMessage()}
	c := newClient(t, opts)
	t.c = c
	return c, nil
}

// userAgent is the User-Agent of the client's HTTP requests and WebSocket
// handshakes.
const userAgent = "jetrpc-client"

type httpTransport struct {
	c      *Client
	hc     *httpc.Client
	max    int
	closed atomic.Bool
	bufs   sync.Pool // *outMsg
	states sync.Pool // *inState
	resps  sync.Pool // *httpResp
}

// httpResp is a POST's pooled state: the answer (its body buffer kept
// across uses) and the request's extra headers.
type httpResp struct {
	httpc.Response
	hdr []byte
}

func (t *httpTransport) getResponse() *httpResp {
	if r, ok := t.resps.Get().(*httpResp); ok {
		return r
	}
	return new(httpResp)
}

func (t *httpTransport) putResponse(r *httpResp) {
	if cap(r.Body) > maxKeptOut {
		return // a burst's buffer does not stay pinned
	}
	r.Body, r.hdr = r.Body[:0], r.hdr[:0]
	t.resps.Put(r)
}

func (t *httpTransport) stream() bool { return false }

func (t *httpTransport) begin(context.Context) (*outMsg, error) {
	if t.closed.Load() {
		if err := t.c.closedErr(); err != nil {
			return nil, err
		}
		return nil, ErrClosed
	}
	m, _ := t.bufs.Get().(*outMsg)
	if m == nil {
		m = new(outMsg)
	}
	m.b = m.b[:0]
	return m, nil
}

func (t *httpTransport) abort(m *outMsg) { t.putBuf(m) }

func (t *httpTransport) putBuf(m *outMsg) {
	if cap(m.b) <= maxKeptOut {
		t.bufs.Put(m)
	}
}

func (t *httpTransport) send(ctx context.Context, m *outMsg, ids []uint64) error {
	if len(m.b) > t.max {
		t.putBuf(m)
		return ErrTooLarge
	}
	if len(ids) == 0 || ctx.Done() == nil {
		return t.post(ctx, m, ids)
	}
	go t.post(ctx, m, slices.Clone(ids))
	return nil
}

// post sends m and delivers the reply. Calls among ids that the reply did
// not answer complete with an error, which post also returns.
func (t *httpTransport) post(ctx context.Context, m *outMsg, ids []uint64) error {
	r := t.getResponse()
	r.hdr = t.c.appendTraceHeaders(ctx, r.hdr[:0])
	var err error
	if r.hdr, err = t.c.appendAuthHeader(ctx, r.hdr); err == nil {
		dl, hasDeadline := ctx.Deadline()
		err = t.hc.Post(r.hdr, m.b, &r.Response, dl)
		switch {
		case err == nil:
			err = t.reply(&r.Response, ids)
		case ctx.Err() != nil:
			err = ctx.Err()
		case hasDeadline && errors.Is(err, httpc.ErrTimeout):
			err = context.DeadlineExceeded // ours, a moment before ctx's timer
		case errors.Is(err, httpc.ErrClosed):
			err = ErrClosed // Close ran while the request waited for a connection
		}
	}
	t.putResponse(r)
	t.putBuf(m)
	if err != nil {
		t.finish(ids, err)
	}
	return err
}

// reply delivers a reply. When calls among ids remain unanswered, it
// completes them with the error of a reply that is one error response
// with id null, else with ErrNoResponse.
func (t *httpTransport) reply(resp *httpc.Response, ids []uint64) error {
	body := resp.Body
	switch code := resp.StatusCode; code {
	case 200:
	case 204:
		t.finish(ids, ErrNoResponse)
		return nil
	default:
		return &HTTPError{StatusCode: code, Body: bytes.Clone(body[:min(len(body), 512)])}
	}
	st, _ := t.states.Get().(*inState)
	if st == nil {
		st = newInState(t.max)
	}
	t.c.deliver(st, body)
	st.later.run()
	if len(ids) > 0 && t.c.calls.AnyPending(ids) {
		err := ErrNoResponse
		if m, perr := st.p.Parse(body); perr == nil && m.Kind == decode.ErrorResponse && string(m.ID) == "null" {
			err = error(rpcmsg.ParseError(m.Error))
		}
		t.finish(ids, err)
	}
	st.p.Reset()
	t.states.Put(st)
	return nil
}

// finish completes the calls among ids still pending with err.
func (t *httpTransport) finish(ids []uint64, err error) {
	for _, id := range ids {
		if p := t.c.calls.Take(id); p != nil {
			p.Fail(err)
		}
	}
}

func (t *httpTransport) close() error {
	t.closed.Store(true)
	t.hc.CloseIdleConnections()
	return nil
}
