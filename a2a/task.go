package a2a

// NOTE: a task's events go through publish, under the task's lock: the
// event changes the task, is numbered (seq), rendered once for each wire,
// appended to the EventStore, and queued to each subscriber and to the
// push notifier. A subscriber attaches under the same lock, after a replay
// from the store or a snapshot, so it sees every event exactly once.

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/streamstore"
)

// errTerminal is what an executor's update of a finished task returns.
var errTerminal = errors.New("a2a: the task is in a terminal state")

type task struct {
	s  *Server
	mu sync.Mutex
	t  Task
	// seq is the number of the last event.
	seq     uint64
	subs    map[*sub]struct{}
	changed chan struct{} // closed and replaced on every event
	cancel  context.CancelFunc
	running bool
	remote  bool   // loaded from the shared store: another replica runs it (replica.go)
	owner   string // the instance of the replica that runs it, with a shared store (owner.go)
	push    []pushConfig
	last    time.Time // of the last event, for eviction
}

// stored is one event as the store keeps it: both wires' renderings.
type stored struct {
	seq   uint64
	data  []byte // uvarint len(v03) | v03 | v10
	final bool
}

func (e *stored) wire(w Wire) []byte { return splitStored(e.data, w) }

func splitStored(data []byte, w Wire) []byte {
	n, k := binary.Uvarint(data)
	if k <= 0 || int(n) > len(data)-k {
		return nil
	}
	if w == V03 {
		return data[k : k+int(n)]
	}
	return data[k+int(n):]
}

func (t *task) key() streamstore.Key { return streamKey(t.t.ID) }

func streamKey(id string) streamstore.Key { return streamstore.Key{Session: "a2a:" + id, Stream: 1} }

// publish applies e to the task and delivers it. It fails once the task is
// terminal.
func (t *task) publish(e *event) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.publishLocked(e)
}

func (t *task) publishLocked(e *event) error {
	if t.t.Status.State.Terminal() && e.task == nil {
		return errTerminal
	}
	e.taskID, e.ctxID = t.t.ID, t.t.ContextID
	switch {
	case e.status != nil:
		if e.status.Timestamp.IsZero() {
			e.status.Timestamp = time.Now()
		}
		if m := e.status.Message; m != nil {
			m.TaskID, m.ContextID = t.t.ID, t.t.ContextID
			t.t.History = append(t.t.History, *m)
		}
		t.t.Status = *e.status
	case e.artifact != nil:
		t.mergeArtifact(e)
	case e.message != nil:
		e.message.TaskID, e.message.ContextID = t.t.ID, t.t.ContextID
		t.t.History = append(t.t.History, *e.message)
	}
	t.seq++
	ev := stored{seq: t.seq, data: renderBoth(e), final: e.final()}
	if err := t.s.events.Append(t.s.storeCtx, t.key(), streamstore.Event{Seq: ev.seq, Data: ev.data, Final: ev.final}); err != nil {
		t.s.log.Warn("a2a: event store append failed", "task", t.t.ID, "err", err)
	}
	t.saveLocked()
	for s := range t.subs {
		s.push(ev)
	}
	close(t.changed)
	t.changed = make(chan struct{})
	t.last = time.Now()
	if len(t.push) > 0 {
		t.s.notify(t, e)
	}
	return nil
}

func (t *task) mergeArtifact(e *event) {
	a := *e.artifact
	for i := range t.t.Artifacts {
		if t.t.Artifacts[i].ArtifactID == a.ArtifactID {
			if e.appendA {
				old := t.t.Artifacts[i]
				old.Parts = append(append([]Part{}, old.Parts...), a.Parts...)
				a = old
			}
			t.t.Artifacts[i] = a
			return
		}
	}
	t.t.Artifacts = append(t.t.Artifacts, a)
}

// snapshot returns a copy of the task and its last event's number.
func (t *task) snapshot() (*Task, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.t.clone(), t.seq
}

// sub is one subscriber: an SSE stream of a request.
type sub struct {
	mu     sync.Mutex
	q      []stored
	wake   chan struct{}
	closed bool
}

func newSub() *sub { return &sub{wake: make(chan struct{}, 1)} }

func (s *sub) push(ev stored) {
	s.mu.Lock()
	if !s.closed {
		s.q = append(s.q, ev)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns what is queued.
func (s *sub) take(dst []stored) []stored {
	s.mu.Lock()
	dst = append(dst, s.q...)
	clear(s.q)
	s.q = s.q[:0]
	s.mu.Unlock()
	return dst
}

// attach adds a subscriber. With replay, it first gets the stored events
// after after; else a snapshot of the task (numbered as the last event)
// when snapshot is set.
func (t *task) attach(replay bool, after uint64) (*sub, error) {
	sb := newSub()
	t.mu.Lock()
	defer t.mu.Unlock()
	if replay {
		_, err := t.s.events.Replay(t.s.ctx, t.key(), after, func(ev streamstore.Event) error {
			sb.q = append(sb.q, stored{seq: ev.Seq, data: append([]byte(nil), ev.Data...), final: ev.Final})
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		sb.q = append(sb.q, stored{seq: t.seq, data: renderBoth(&event{task: t.t.clone()}), final: t.t.Status.State.Terminal()})
	}
	if t.subs == nil {
		t.subs = map[*sub]struct{}{}
	}
	if !t.t.Status.State.Terminal() {
		t.subs[sb] = struct{}{}
	}
	return sb, nil
}

func (t *task) detach(sb *sub) {
	t.mu.Lock()
	delete(t.subs, sb)
	t.mu.Unlock()
	sb.mu.Lock()
	sb.closed = true
	sb.q = nil
	sb.mu.Unlock()
}

// wait blocks until the task is in a state that ends a blocking send
// (terminal, input-required, auth-required) or ctx ends.
func (t *task) wait(ctx context.Context) {
	for {
		t.mu.Lock()
		st, ch := t.t.Status.State, t.changed
		t.mu.Unlock()
		if st.Terminal() || st == StateInputRequired || st == StateAuthRequired {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// Run is a task as its executor sees it: the message that started it (or
// moved it on) and the updates the executor makes. Its methods are safe
// for concurrent use; they fail with an error once the task is terminal
// (canceled, for one).
type Run struct {
	t *task
	// TaskID and ContextID name the task.
	TaskID, ContextID string
	// Message is the user's message.
	Message Message
}

// Status moves the task to state, with an optional agent message.
func (r *Run) Status(state State, msg *Message) error {
	if msg != nil {
		msg.Agent = true
	}
	return r.t.publish(&event{status: &Status{State: state, Message: msg}})
}

// Artifact adds an artifact (or, with appendParts, adds its parts to the
// artifact of the same id); last marks its last chunk.
func (r *Run) Artifact(a Artifact, appendParts, last bool) error {
	if a.ArtifactID == "" {
		a.ArtifactID = newID()
	}
	if len(a.Parts) == 0 {
		return Error(CodeInvalidAgentResponse, "an artifact needs parts", nil)
	}
	return r.t.publish(&event{artifact: &a, appendA: appendParts, last: last})
}
