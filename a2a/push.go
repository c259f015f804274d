package a2a

// NOTE: push notifications. A task's events are queued, in order, to a
// Pusher, which POSTs each to every webhook of the task: the task as it
// is on 0.3 (a Task object), the event's StreamResponse on 1.0, with the
// config's token in X-A2A-Notification-Token and its credentials in
// Authorization. A delivery that fails (no connection, a status other
// than 2xx) is tried again after a backoff that doubles, up to
// MaxAttempts; one webhook's deliveries go one at a time, in order.

import (
	"bytes"
	"context"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/encode"
)

type pushConfig struct {
	ID, URL, Token      string
	Scheme, Credentials string
	wire                Wire
}

// addPush adds or replaces (same id) a config; an empty id is "default"
// for the first config, a new one after. Called under t.mu.
func (t *task) addPush(pc pushConfig) pushConfig {
	if pc.ID == "" {
		pc.ID = "default"
		for _, old := range t.push {
			if old.ID == pc.ID {
				pc.ID = newID()
				break
			}
		}
	}
	for i := range t.push {
		if t.push[i].ID == pc.ID {
			t.push[i] = pc
			return pc
		}
	}
	t.push = append(t.push, pc)
	return pc
}

func (pc *pushConfig) append(b []byte, w Wire, taskID string) []byte {
	first := true
	b = append(b, '{')
	b = appendStr(b, &first, "taskId", taskID)
	if w == V03 {
		b = append(appendKey(b, &first, "pushNotificationConfig"), '{')
		first = true
	}
	b = appendStr(b, &first, "id", pc.ID)
	b = appendStr(b, &first, "url", pc.URL)
	b = appendStr(b, &first, "token", pc.Token)
	if pc.Scheme != "" || pc.Credentials != "" {
		b = append(appendKey(b, &first, "authentication"), '{')
		if w == V03 {
			b = append(b, `"schemes":[`...)
			b = encode.AppendString(b, pc.Scheme)
			b = append(b, ']')
		} else {
			b = append(b, `"scheme":`...)
			b = encode.AppendString(b, pc.Scheme)
		}
		if pc.Credentials != "" {
			b = append(b, `,"credentials":`...)
			b = encode.AppendString(b, pc.Credentials)
		}
		b = append(b, '}')
	}
	if w == V03 {
		b = append(b, '}')
	}
	return append(b, '}')
}

// notify queues the notifications of e (under t.mu).
func (s *Server) notify(t *task, e *event) {
	snap := t.t.clone()
	for _, pc := range t.push {
		var body []byte
		if pc.wire == V03 {
			body = appender{V03}.task(nil, snap, -1)
		} else {
			body = appender{V10}.event(nil, e)
		}
		s.push.enqueue(pc, body)
	}
}

// PusherOptions configure a Pusher; zero fields are the defaults.
type PusherOptions struct {
	// Client sends the requests (default: one with a 10 s timeout).
	Client *http.Client
	// MaxAttempts is how often a delivery is tried (default 5).
	MaxAttempts int
	// Backoff is the wait before the second attempt, doubled for each
	// next one (default 200 ms).
	Backoff time.Duration
	// MaxQueue bounds the deliveries waiting for one webhook (default
	// 1000); past it, the oldest is dropped.
	MaxQueue int
	// AllowPrivate lets deliveries connect to loopback, private,
	// link-local, multicast and unspecified addresses. Without it, the
	// Pusher checks the address of each connection as it dials (through
	// redirects too), on a copy of Client whose transport (an
	// *http.Transport, or nil for the default one) gets a guarding dialer
	// and no proxy; a Client with another kind of transport is used as it
	// is, and its guard is its own.
	AllowPrivate bool
}

// Pusher delivers push notifications to webhooks.
type Pusher struct {
	o      PusherOptions
	ctx    context.Context
	stop   context.CancelFunc
	mu     sync.Mutex
	queues map[string]*pushQueue // by URL
	wg     sync.WaitGroup
}

type pushQueue struct {
	items   []pushItem
	running bool
}

type pushItem struct {
	pc   pushConfig
	body []byte
}

// NewPusher returns a Pusher (nil options: the defaults).
func NewPusher(opts *PusherOptions) *Pusher { return newPusher(opts, nil) }

// newPusher is NewPusher with exempt, the addresses the guard lets
// through (tests).
func newPusher(opts *PusherOptions, exempt func(netip.AddrPort) bool) *Pusher {
	p := &Pusher{queues: map[string]*pushQueue{}}
	if opts != nil {
		p.o = *opts
	}
	if p.o.Client == nil {
		p.o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if !p.o.AllowPrivate {
		p.o.Client = guardedClient(p.o.Client, exempt)
	}
	if p.o.MaxAttempts <= 0 {
		p.o.MaxAttempts = 5
	}
	if p.o.Backoff <= 0 {
		p.o.Backoff = 200 * time.Millisecond
	}
	if p.o.MaxQueue <= 0 {
		p.o.MaxQueue = 1000
	}
	p.ctx, p.stop = context.WithCancel(context.Background())
	return p
}

func (p *Pusher) enqueue(pc pushConfig, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return
	}
	q := p.queues[pc.URL]
	if q == nil {
		q = &pushQueue{}
		p.queues[pc.URL] = q
	}
	if len(q.items) >= p.o.MaxQueue {
		q.items = q.items[1:]
	}
	q.items = append(q.items, pushItem{pc, body})
	if !q.running {
		q.running = true
		p.wg.Add(1)
		go p.run(pc.URL, q)
	}
}

func (p *Pusher) run(url string, q *pushQueue) {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		if len(q.items) == 0 || p.ctx.Err() != nil {
			q.running = false
			delete(p.queues, url)
			p.mu.Unlock()
			return
		}
		it := q.items[0]
		q.items = q.items[1:]
		p.mu.Unlock()
		p.deliver(it)
	}
}

// deliver tries one notification up to MaxAttempts times.
func (p *Pusher) deliver(it pushItem) {
	wait := p.o.Backoff
	for attempt := 1; ; attempt++ {
		if p.post(it) || attempt >= p.o.MaxAttempts {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.ctx.Done():
			t.Stop()
			return
		}
		wait *= 2
	}
}

func (p *Pusher) post(it pushItem) bool {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodPost, it.pc.URL, bytes.NewReader(it.body))
	if err != nil {
		return true // never deliverable
	}
	req.Header.Set("Content-Type", "application/json")
	if it.pc.Token != "" {
		req.Header.Set("X-A2A-Notification-Token", it.pc.Token)
	}
	if it.pc.Credentials != "" {
		scheme := it.pc.Scheme
		if scheme == "" {
			scheme = "Bearer"
		}
		req.Header.Set("Authorization", scheme+" "+it.pc.Credentials)
	}
	resp, err := p.o.Client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode >= 200 && resp.StatusCode < 300
}

// Close stops the deliveries and waits for them.
func (p *Pusher) Close() {
	p.stop()
	p.wg.Wait()
}
