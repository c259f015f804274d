package a2a

// NOTE: tasks that outlive their replica's connection. When the EventStore
// is shared by several replicas (it also implements
// streamstore.SessionStore, as streamstore/natsstore does), every event of
// a task also saves the task's state there: {"seq":N,"task":TASK}, TASK as 1.0 renders it, N its last event.
// A replica asked about a task it does not hold loads that state: GetTask
// answers from it, and a subscription (with or without Last-Event-ID)
// replays the task's stored events and, when the store is also an
// streamstore.Follower, follows those the owning replica goes on appending,
// until the event that ends the stream. The executor stays on the replica
// that started the task: cancelling it, a follow-up message and push
// configs are the owner's (another replica answers that the task runs
// elsewhere).

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/streamstore"
)

// saveLocked stores t's state for the other replicas (under t.mu).
func (t *task) saveLocked() {
	ss := t.s.shared
	if ss == nil {
		return
	}
	b := append(make([]byte, 0, 512), `{"seq":`...)
	b = strconv.AppendUint(b, t.seq, 10)
	b = append(b, `,"owner":`...)
	b = encode.AppendString(b, t.owner)
	b = append(b, `,"task":`...)
	b = appender{V10}.task(b, &t.t, -1)
	b = append(b, '}')
	if err := ss.SaveSession(t.s.storeCtx, t.key().Session, b); err != nil {
		t.s.log.Warn("a2a: task state save failed", "task", t.t.ID, "err", err)
	}
}

// loadRemote returns the task of id as another replica saved it, or nil.
func (s *Server) loadRemote(id string) *task {
	if s.shared == nil {
		return nil
	}
	state, found, err := s.shared.LoadSession(s.ctx, streamKey(id).Session)
	if err != nil {
		s.log.Warn("a2a: task state load failed", "task", id, "err", err)
		return nil
	}
	if !found {
		return nil
	}
	tk, seq, owner, err := parseSaved(state)
	if err != nil || tk.ID != id {
		s.log.Warn("a2a: a saved task state does not parse", "task", id, "err", err)
		return nil
	}
	return &task{s: s, t: tk, seq: seq, owner: owner, remote: true, changed: make(chan struct{})}
}

// errRemote is what a change to another replica's task gets.
func errRemote(t *task, code encode.Code) error {
	return Error(code, "Task "+t.t.ID+" runs on another replica: send this request to it",
		map[string]string{"taskId": t.t.ID, "reason": "remote"})
}

// subscribeRemote opens the stream of another replica's task: its events
// after after from the store (with snapshot, first the saved state,
// numbered as its last event, and the events after it), then, with a
// StreamFollower, those appended later.
func (s *Server) subscribeRemote(t *task, snapshot bool, after uint64) (*streamPlan, error) {
	sb := newSub()
	terminal := t.t.Status.State.Terminal()
	if snapshot {
		e := &event{task: t.t.clone()}
		sb.q = append(sb.q, stored{seq: t.seq, data: renderBoth(e), final: terminal})
		after = t.seq
		if terminal {
			return &streamPlan{t: t, sb: sb, drain: true}, nil
		}
	}
	var seen atomic.Int64 // when the last event came (owner.go)
	seen.Store(time.Now().UnixNano())
	push := func(ev streamstore.Event) error {
		seen.Store(time.Now().UnixNano())
		sb.push(stored{seq: ev.Seq, data: append([]byte(nil), ev.Data...), final: ev.Final})
		return nil
	}
	f, ok := s.events.(streamstore.Follower)
	if !ok || terminal {
		if _, err := s.events.Replay(s.ctx, t.key(), after, push); err != nil {
			return nil, err
		}
		return &streamPlan{t: t, sb: sb, drain: true}, nil
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	if t.owner != "" {
		s.wg.Add(1)
		go s.watch(ctx, t, &seen)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(done)
		if err := f.Follow(ctx, t.key(), after, push); err != nil && ctx.Err() == nil {
			s.log.Warn("a2a: following a task of another replica failed", "task", t.t.ID, "err", err)
		}
	}()
	return &streamPlan{t: t, sb: sb, done: done, stop: cancel}, nil
}

// renderBoth renders e for both wires as the store keeps it.
func renderBoth(e *event) []byte {
	v03 := appender{V03}.event(nil, e)
	data := binary.AppendUvarint(make([]byte, 0, 2*len(v03)+64), uint64(len(v03)))
	data = append(data, v03...)
	return appender{V10}.event(data, e)
}

// The saved state, as 1.0 renders a task.
type savedTask struct {
	Seq   uint64 `json:"seq"`
	Owner string `json:"owner"`
	Task  struct {
		ID        string `json:"id"`
		ContextID string `json:"contextId"`
		Status    struct {
			State     string     `json:"state"`
			Message   *messageIn `json:"message"`
			Timestamp string     `json:"timestamp"`
		} `json:"status"`
		Artifacts []struct {
			ArtifactID  string          `json:"artifactId"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parts       []partIn        `json:"parts"`
			Metadata    json.RawMessage `json:"metadata"`
		} `json:"artifacts"`
		History  []messageIn     `json:"history"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"task"`
}

// parseSaved reads a saved state (only on a replica that does not hold
// the task, so encoding/json is no cost on the path of events).
func parseSaved(b []byte) (Task, uint64, string, error) {
	var in savedTask
	if err := json.Unmarshal(b, &in); err != nil {
		return Task{}, 0, "", err
	}
	it := &in.Task
	tk := Task{ID: it.ID, ContextID: it.ContextID, Metadata: nullToNil(it.Metadata)}
	var ok bool
	if tk.Status.State, ok = parseState(it.Status.State); !ok {
		return Task{}, 0, "", Error(CodeInvalidAgentResponse, "unknown state "+quote(it.Status.State), nil)
	}
	if it.Status.Timestamp != "" {
		tk.Status.Timestamp, _ = time.Parse(time.RFC3339Nano, it.Status.Timestamp)
	}
	if it.Status.Message != nil {
		m := savedMessage(it.Status.Message)
		tk.Status.Message = &m
	}
	for i := range it.History {
		tk.History = append(tk.History, savedMessage(&it.History[i]))
	}
	for _, a := range it.Artifacts {
		tk.Artifacts = append(tk.Artifacts, Artifact{ArtifactID: a.ArtifactID, Name: a.Name,
			Description: a.Description, Parts: savedParts(a.Parts), Metadata: nullToNil(a.Metadata)})
	}
	return tk, in.Seq, in.Owner, nil
}

// savedMessage reads a message this package rendered (not checked as a
// client's is).
func savedMessage(in *messageIn) Message {
	m := Message{ContextID: in.ContextID, TaskID: in.TaskID, Parts: savedParts(in.Parts),
		Metadata: nullToNil(in.Metadata), Extensions: in.Extensions, ReferenceTaskIDs: in.ReferenceTaskIDs}
	if in.MessageID != nil {
		m.MessageID = *in.MessageID
	}
	m.Agent = in.Role != nil && *in.Role == "ROLE_AGENT"
	return m
}

func savedParts(in []partIn) []Part {
	ps := make([]Part, 0, len(in))
	for i := range in {
		p, _ := toPart(V10, &in[i])
		ps = append(ps, p)
	}
	return ps
}
