package load

// NOTE: a window is the calls in flight of one connection (or one HTTP
// worker): P slots, a stack of free ones, and the counters and histogram
// that the connection fills. A call in slot s with sequence number q has
// callID q*P+s; its k-th id is callID<<10 | k. check parses one answer
// (a response or a batch of them) and settles the calls it completes.

import (
	"github.com/jetrpc/jetrpc/decode"
)

// Counts are what a run (or one connection) saw.
type Counts struct {
	Sent          int64 // requests written, calls and notifications
	Calls         int64 // requests that expect an answer
	Notifications int64 // requests that expect none
	OK            int64 // calls answered with results only
	Errors        int64 // calls answered, with at least one error response
	Unanswered    int64 // calls still waiting when the run ended
	Dropped       int64 // calls in flight on a connection that ended (Reconnect)
	Reconnects    int64 // connections opened again after one ended (Reconnect)
	Mismatched    int64 // responses whose id matches no call in flight (or one twice)
	Malformed     int64 // answers that are not JSON-RPC responses
	BytesOut      int64 // request bytes written (without framing)
	BytesIn       int64 // answer bytes read (without framing)
}

// Failed is the calls or answers that went wrong.
func (c *Counts) Failed() int64 {
	return c.Errors + c.Unanswered + c.Dropped + c.Mismatched + c.Malformed
}

// Add adds o to c.
func (c *Counts) Add(o *Counts) {
	c.Sent += o.Sent
	c.Calls += o.Calls
	c.Notifications += o.Notifications
	c.OK += o.OK
	c.Errors += o.Errors
	c.Unanswered += o.Unanswered
	c.Dropped += o.Dropped
	c.Reconnects += o.Reconnects
	c.Mismatched += o.Mismatched
	c.Malformed += o.Malformed
	c.BytesOut += o.BytesOut
	c.BytesIn += o.BytesIn
}

type slot struct {
	seq    uint64
	sent   int64 // ns since the run's start
	holes  int   // ids the call carries
	left   int   // ids not yet answered
	failed bool  // an error response came
	active bool
	seen   []uint64 // bit k: id k answered
}

type window struct {
	p      uint64
	slots  []slot
	free   []int
	parser decode.Parser
	counts Counts
	hist   Histogram
	pos    int   // position in the mix's schedule
	last   int64 // when the last call was settled or notification sent
}

func newWindow(p, maxHoles int) *window {
	w := &window{p: uint64(p), slots: make([]slot, p), free: make([]int, 0, p)}
	words := (maxHoles + 63) / 64
	seen := make([]uint64, p*words) // one allocation for every slot's bits
	for i := p - 1; i >= 0; i-- {
		w.slots[i].seen = seen[i*words : (i+1)*words : (i+1)*words]
		w.free = append(w.free, i)
	}
	return w
}

func (w *window) inflight() int { return len(w.slots) - len(w.free) }

// start takes a free slot for a call of req sent at now and returns its
// callID; the caller checks that a slot is free.
func (w *window) start(req *Request, now int64) uint64 {
	i := w.free[len(w.free)-1]
	w.free = w.free[:len(w.free)-1]
	s := &w.slots[i]
	s.seq++
	s.sent, s.holes, s.left, s.failed, s.active = now, req.Holes(), req.Holes(), false, true
	clear(s.seen)
	w.counts.Calls++
	return s.seq*w.p + uint64(i)
}

// check settles what one answer says; now is when it was read.
func (w *window) check(answer []byte, now int64) {
	w.counts.BytesIn += int64(len(answer))
	m, err := w.parser.Parse(answer)
	if err != nil {
		w.counts.Malformed++
		return
	}
	switch m.Kind {
	case decode.Result, decode.ErrorResponse:
		w.settle(m.ID, m.Kind == decode.ErrorResponse, now)
	case decode.Batch:
		for i := range w.parser.Batch() {
			b := &w.parser.Batch()[i]
			if b.Kind != decode.Result && b.Kind != decode.ErrorResponse {
				w.counts.Malformed++
				continue
			}
			w.settle(b.ID, b.Kind == decode.ErrorResponse, now)
		}
	default:
		w.counts.Malformed++
	}
}

func (w *window) settle(rawID []byte, isErr bool, now int64) {
	id, ok := parseID(rawID)
	if !ok {
		w.counts.Mismatched++
		return
	}
	cid, k := id>>10, id&(maxHoles-1)
	i := cid % w.p
	s := &w.slots[i]
	if !s.active || s.seq != cid/w.p || k >= uint64(s.holes) || s.seen[k/64]&(1<<(k%64)) != 0 || s.left == 0 {
		w.counts.Mismatched++
		return
	}
	s.seen[k/64] |= 1 << (k % 64)
	s.failed = s.failed || isErr
	s.left--
	if s.left > 0 {
		return
	}
	s.active = false
	w.free = append(w.free, int(i))
	w.last = now
	w.hist.RecordValue(uint64(max(now-s.sent, 0)))
	if s.failed {
		w.counts.Errors++
	} else {
		w.counts.OK++
	}
}

// finish counts the calls still in flight as unanswered and frees their
// slots.
func (w *window) finish() { w.counts.Unanswered += w.release() }

// drop counts the calls still in flight as dropped (their connection
// ended) and frees their slots.
func (w *window) drop() { w.counts.Dropped += w.release() }

// release frees the slots of the calls in flight and returns how many.
func (w *window) release() int64 {
	var n int64
	for i := range w.slots {
		if w.slots[i].active {
			w.slots[i].active = false
			w.free = append(w.free, i)
			n++
		}
	}
	return n
}

// parseID reads an id this generator made: decimal digits, maybe quoted.
func parseID(b []byte) (uint64, bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}
