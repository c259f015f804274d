package a2a

// NOTE: a replica that dies with tasks running. With a shared store, each
// replica has an instance id and beats: every OwnerTimeout/4 it saves a
// counter under "a2a-replica:ID". A task's saved state names its owner.
// A replica following another's task (replica.go) watches the owner's
// beat: when neither an event of the task nor a new beat has come for
// OwnerTimeout (measured on the follower's clock, so the replicas' clocks
// need not agree), the owner is taken for dead and the task can never end
// there; the follower ends it as failed, appending that status as the
// stream's next event (JetStream deduplicates one event number, should
// two followers do so at once) and saving the state. Its subscribers, and
// those of every other replica, get it as the final event.

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/streamstore"
)

// beatKey is the store key of a replica's beat.
func beatKey(instance string) string { return "a2a-replica:" + instance }

// beat saves this replica's beat until the server closes, then forgets it.
func (s *Server) beat() {
	defer s.wg.Done()
	tick := time.NewTicker(s.ownerTimeout / 4)
	defer tick.Stop()
	for n := uint64(1); ; n++ {
		if err := s.shared.SaveSession(s.ctx, beatKey(s.instance), strconv.AppendUint(nil, n, 10)); err != nil && s.ctx.Err() == nil {
			s.log.Warn("a2a: replica beat failed", "err", err)
		}
		select {
		case <-tick.C:
		case <-s.ctx.Done():
			s.events.Forget(s.storeCtx, beatKey(s.instance))
			return
		}
	}
}

// watch runs beside the follow of another replica's task t: it ends the
// task as failed when its owner stops beating before the task ends.
// seen is the time (UnixNano) of the last event the follow yielded.
func (s *Server) watch(ctx context.Context, t *task, seen *atomic.Int64) {
	defer s.wg.Done()
	tick := time.NewTicker(s.ownerTimeout / 4)
	defer tick.Stop()
	var beat string
	beatAt := time.Now()
	for {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
		b, found, err := s.shared.LoadSession(ctx, beatKey(t.owner))
		if err != nil {
			continue // the store, not the owner: try again
		}
		if found && string(b) != beat {
			beat, beatAt = string(b), time.Now()
		}
		quiet := time.Since(time.Unix(0, seen.Load()))
		if time.Since(beatAt) < s.ownerTimeout || quiet < s.ownerTimeout {
			continue
		}
		s.orphaned(ctx, t)
		return
	}
}

// orphaned ends the task of old, whose owner died, as failed: after the
// last event the store holds, unless that one ended the stream; on the
// state last saved.
func (s *Server) orphaned(ctx context.Context, old *task) {
	t := s.loadRemote(old.t.ID)
	if t == nil {
		return
	}
	var last streamstore.Event
	if _, err := s.events.Replay(ctx, t.key(), 0, func(ev streamstore.Event) error {
		last = streamstore.Event{Seq: ev.Seq, Final: ev.Final}
		return nil
	}); err != nil || last.Final {
		return
	}
	s.log.Warn("a2a: the replica running a task stopped; the task fails", "task", t.t.ID, "owner", t.owner)
	t.mu.Lock()
	defer t.mu.Unlock()
	e := &event{status: &Status{State: StateFailed, Timestamp: time.Now(), Message: &Message{MessageID: newID(), Agent: true,
		Parts: []Part{TextPart("The replica running this task (" + t.owner + ") stopped before the task ended")}}}}
	e.taskID, e.ctxID = t.t.ID, t.t.ContextID
	e.status.Message.TaskID, e.status.Message.ContextID = t.t.ID, t.t.ContextID
	t.t.History = append(t.t.History, *e.status.Message)
	t.t.Status = *e.status
	t.seq = last.Seq + 1
	// Not ctx: the subscriber that started this watch can get the event
	// from the store before the append's acknowledgement comes back, end
	// its stream and cancel ctx; the event would be stored, the append
	// report "context canceled" and the state never be saved.
	if err := s.events.Append(s.storeCtx, t.key(), streamstore.Event{Seq: t.seq, Data: renderBoth(e), Final: true}); err != nil {
		s.log.Warn("a2a: event store append failed", "task", t.t.ID, "err", err)
		return
	}
	t.saveLocked()
}
