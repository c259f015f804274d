package load

import (
	"context"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// maxHTTPFailures is how many transport failures in a row end an HTTP
// worker.
const maxHTTPFailures = 10

// httpWorkers checks that the server is there and returns the workers: one
// per connection with a HostClient when Pipeline is 1, else Conns*Pipeline
// sharing a PipelineClient that keeps Pipeline requests in flight on each
// of Conns connections. (A PipelineClient cannot be closed: its connections
// close after a second idle.)
func (r *run) httpWorkers() ([]func(context.Context, *window) error, error) {
	c, err := net.DialTimeout("tcp", r.cfg.Addr, r.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	c.Close()
	var do func(*fasthttp.Request, *fasthttp.Response, time.Duration) error
	n := r.cfg.Conns
	if r.cfg.Pipeline == 1 {
		hc := &fasthttp.HostClient{Addr: r.cfg.Addr, MaxConns: r.cfg.Conns,
			ReadTimeout: r.cfg.Timeout, WriteTimeout: r.cfg.Timeout, MaxConnWaitTimeout: r.cfg.Timeout,
			IsTLS: r.cfg.TLS != nil, TLSConfig: r.cfg.TLS}
		do = hc.DoTimeout
		r.cleanup = hc.CloseIdleConnections
	} else {
		pc := &fasthttp.PipelineClient{Addr: r.cfg.Addr, MaxConns: r.cfg.Conns,
			MaxPendingRequests: r.cfg.Conns * r.cfg.Pipeline, ReadTimeout: r.cfg.Timeout, WriteTimeout: r.cfg.Timeout,
			MaxIdleConnDuration: time.Second, IsTLS: r.cfg.TLS != nil, TLSConfig: r.cfg.TLS}
		do = pc.DoTimeout
		n *= r.cfg.Pipeline
	}
	workers := make([]func(context.Context, *window) error, n)
	for i := range workers {
		workers[i] = func(ctx context.Context, w *window) error { return r.httpLoop(ctx, do, w) }
	}
	return workers, nil
}

// httpLoop posts one request at a time and checks its answer: 200 with the
// response(s), or for a request without ids 204 (or 200 with an empty body).
func (r *run) httpLoop(ctx context.Context, do func(*fasthttp.Request, *fasthttp.Response, time.Duration) error, w *window) error {
	rq, rs := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(rq)
	defer fasthttp.ReleaseResponse(rs)
	rq.SetRequestURI(r.scheme("http") + "://" + r.cfg.Addr + "/")
	rq.Header.SetMethod(fasthttp.MethodPost)
	rq.Header.SetContentType("application/json")
	body := make([]byte, 0, 4096)
	failures := 0
	for ctx.Err() == nil {
		now := r.now()
		req := r.claim(w, now)
		if req == nil {
			return nil
		}
		if req.Holes() == 0 {
			body = req.Append(body[:0], 0)
		} else {
			body = req.Append(body[:0], w.start(req, now))
		}
		rq.SetBody(body)
		w.counts.Sent++
		w.counts.BytesOut += int64(len(body))
		err := do(rq, rs, r.cfg.Timeout)
		t := r.now()
		if err != nil {
			w.finish()
			if failures++; failures >= maxHTTPFailures {
				return err
			}
			continue
		}
		failures = 0
		switch code := rs.StatusCode(); {
		case req.Holes() == 0 && (code == fasthttp.StatusNoContent || code == fasthttp.StatusOK && len(rs.Body()) == 0):
			w.counts.Notifications++
			w.last = t
			r.progress(1)
		case code == fasthttp.StatusOK && len(rs.Body()) > 0:
			w.check(rs.Body(), t)
			if w.inflight() == 0 {
				r.progress(1)
			}
		default:
			w.counts.Malformed++
		}
		w.finish() // an answer that did not settle the call: it never will
	}
	return ctx.Err()
}
