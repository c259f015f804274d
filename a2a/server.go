package a2a

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/streamstore"
)

// Executor is the agent: it runs a task until it is terminal or needs
// input. It returns when done; a nil return from a task that is not
// terminal completes it, an error fails it. ctx is cancelled when the
// task is cancelled (CancelTask, tasks/cancel) or the server closes.
type Executor interface {
	Execute(ctx context.Context, r *Run) error
}

// ExecutorFunc adapts a function to an Executor.
type ExecutorFunc func(ctx context.Context, r *Run) error

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, r *Run) error { return f(ctx, r) }

var _ Executor = ExecutorFunc(nil)

// Options configure a Server; nil means the defaults.
type Options struct {
	// Events keeps the events of the tasks' streams (default: a
	// streamstore.Memory of its own). Share one between replicas so that a
	// subscription with Last-Event-ID resumes on any of them: a store that
	// is also a streamstore.SessionStore (streamstore/natsstore's) keeps
	// the tasks' states too, so that every replica answers GetTask and
	// subscriptions for the tasks of the others, and one that is a
	// streamstore.Follower streams their events live (replica.go).
	Events streamstore.Store
	// MaxTasks bounds the tasks kept (default 10,000): past it, the
	// terminal tasks idle longest are forgotten.
	MaxTasks int
	// Push delivers push notifications (default: a Pusher with its
	// defaults, and AllowPrivateWebhooks).
	Push *Pusher
	// AllowPrivateWebhooks accepts push configs whose URL names or
	// resolves to a loopback, private, link-local, multicast or
	// unspecified address, refused by default (-32602) against SSRF
	// (webhook.go). A Pusher of Options.Push checks its connections by its
	// own PusherOptions.AllowPrivate.
	AllowPrivateWebhooks bool
	// OwnerTimeout is how long, with a store shared by replicas, a replica
	// following another's task waits without an event of it or a sign of
	// life of its owner (each replica beats every OwnerTimeout/4) before
	// it ends the task as failed, its executor gone (default 10 s;
	// owner.go).
	OwnerTimeout time.Duration
	// Security, when set, is the OAuth 2.0 scheme the card declares
	// (security.go; Server.SetSecurity changes it later). The server's
	// HTTP guard checks the tokens; package a2a only declares it.
	Security *OAuth2Security
	// Logger (default slog.Default()).
	Logger *slog.Logger
	// Engine are the options of the two wires' engines (nil: defaults;
	// Codes nil: EngineCodes).
	Engine *dispatch.Options
}

// Server is an A2A agent: its card, its executor and its tasks.
type Server struct {
	card     AgentCard
	security atomic.Pointer[OAuth2Security] // the card's scheme (security.go)
	exec     Executor
	events   streamstore.Store
	shared   streamstore.SessionStore // events, when it is shared by replicas (replica.go)
	push     *Pusher
	// allowPrivate: Options.AllowPrivateWebhooks; lookupHost resolves a
	// webhook's host when its config is set (webhook.go).
	allowPrivate bool
	lookupHost   lookupFunc
	// instance names this replica to the others, ownerTimeout is
	// Options.OwnerTimeout (with a shared store; owner.go).
	instance     string
	ownerTimeout time.Duration
	log          *slog.Logger
	max          int
	ctx          context.Context
	stop         context.CancelFunc
	// storeCtx is ctx without its cancel: the events and states of a
	// closing server (its tasks canceled) are stored too.
	storeCtx context.Context
	eng      [2]*dispatch.Engine // by Wire

	mu    sync.Mutex
	tasks map[string]*task
	order []string // task ids by creation, for eviction
	wg    sync.WaitGroup
}

// New returns a Server for the agent exec described by card.
func New(card AgentCard, exec Executor, opts *Options) *Server {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	s := &Server{card: card, exec: exec, events: o.Events, push: o.Push, log: o.Logger, max: o.MaxTasks,
		tasks: map[string]*task{}}
	if s.events == nil {
		s.events = streamstore.NewMemory(nil)
	}
	s.shared, _ = s.events.(streamstore.SessionStore)
	s.security.Store(o.Security)
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.max <= 0 {
		s.max = 10000
	}
	s.allowPrivate, s.lookupHost = o.AllowPrivateWebhooks, systemLookup
	if s.push == nil {
		s.push = NewPusher(&PusherOptions{AllowPrivate: o.AllowPrivateWebhooks})
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.storeCtx = context.WithoutCancel(s.ctx)
	if s.shared != nil {
		s.instance, s.ownerTimeout = newID(), o.OwnerTimeout
		if s.ownerTimeout <= 0 {
			s.ownerTimeout = 10 * time.Second
		}
		s.wg.Add(1)
		go s.beat()
	}
	for w := range s.eng {
		var eo dispatch.Options
		if o.Engine != nil {
			eo = *o.Engine
		}
		if eo.Logger == nil {
			eo.Logger = s.log
		}
		if eo.Codes == nil { // the engine's conditions must not read as A2A's errors
			eo.Codes = EngineCodes()
		}
		s.eng[w] = dispatch.New(&eo)
		if err := s.register(Wire(w)); err != nil {
			panic(err) // fixed names: a bug
		}
	}
	return s
}

// Engine returns the engine of wire w (to add middleware, or for tests).
func (s *Server) Engine(w Wire) *dispatch.Engine { return s.eng[w] }

// Close cancels the running tasks, waits for their executors and the
// push deliveries, and closes the engines.
func (s *Server) Close() {
	s.stop()
	s.wg.Wait()
	s.push.Close()
	for _, e := range s.eng {
		e.Close()
	}
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// lookup returns the task of id, or -32001.
func (s *Server) lookup(id *string) (*task, error) {
	if id == nil || *id == "" {
		return nil, invalidParams("id", "required")
	}
	s.mu.Lock()
	t := s.tasks[*id]
	s.mu.Unlock()
	if t == nil {
		t = s.loadRemote(*id)
	}
	if t == nil {
		return nil, Error(CodeTaskNotFound, "", map[string]string{"taskId": *id})
	}
	return t, nil
}

// lookupLocal returns the task of id that this replica runs: -32001, or
// the task's code when another replica runs it.
func (s *Server) lookupLocal(id *string, remote encode.Code) (*task, error) {
	t, err := s.lookup(id)
	if err == nil && t.remote {
		return nil, errRemote(t, remote)
	}
	return t, err
}

// newTask makes a submitted task for m and publishes it as its first
// event.
func (s *Server) newTask(m *Message, metadata []byte) *task {
	t := &task{s: s, owner: s.instance, changed: make(chan struct{})}
	t.t.ID = newID()
	if m.TaskID != "" {
		t.t.ID = m.TaskID
	}
	t.t.ContextID = m.ContextID
	if t.t.ContextID == "" {
		t.t.ContextID = newID()
	}
	m.TaskID, m.ContextID = t.t.ID, t.t.ContextID
	t.t.Metadata = nullToNil(metadata)
	t.t.History = []Message{*m}
	t.t.Status = Status{State: StateSubmitted, Timestamp: time.Now()}
	s.mu.Lock()
	s.tasks[t.t.ID] = t
	s.order = append(s.order, t.t.ID)
	forgotten := s.evictLocked()
	s.mu.Unlock()
	s.forget(forgotten)
	t.mu.Lock()
	t.publishLocked(&event{task: t.t.clone()})
	t.mu.Unlock()
	return t
}

// evictLocked forgets the oldest terminal tasks past s.max. It frees a
// sixteenth of s.max at once (down to s.max-s.max/16), and stops walking
// once it has, so that a server at its bound pays one walk of s.order per
// s.max/16 new tasks, not one per task (a walk of 10,000 ids per send cost
// 18% of the CPU at the default bound). It returns the ids forgotten, for
// forget.
func (s *Server) evictLocked() (forgotten []string) {
	if len(s.tasks) <= s.max {
		return nil
	}
	target := s.max - s.max/16
	kept := s.order[:0]
	i := 0
	for ; i < len(s.order)-1 && len(s.tasks) > target; i++ {
		id := s.order[i]
		t := s.tasks[id]
		if t == nil {
			continue
		}
		t.mu.Lock()
		done := t.t.Status.State.Terminal()
		t.mu.Unlock()
		if done {
			delete(s.tasks, id)
			forgotten = append(forgotten, id)
			continue
		}
		kept = append(kept, id)
	}
	kept = append(kept, s.order[i:]...)
	clear(s.order[len(kept):])
	s.order = kept
	return forgotten
}

// forget drops the stored events of evicted tasks, on a goroutine of its
// own: with a shared store each is a network call, which must hold neither
// the server's lock nor the request that evicted them.
func (s *Server) forget(ids []string) {
	if len(ids) == 0 {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, id := range ids {
			s.events.Forget(s.ctx, streamKey(id).Session)
		}
	}()
}

// start runs the executor for t.
func (s *Server) start(t *task, m Message) {
	ctx, cancel := context.WithCancel(s.ctx)
	t.mu.Lock()
	t.cancel, t.running = cancel, true
	t.mu.Unlock()
	r := &Run{t: t, TaskID: t.t.ID, ContextID: t.t.ContextID, Message: m}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		err := s.exec.Execute(ctx, r)
		t.mu.Lock()
		t.running = false
		if !t.t.Status.State.Terminal() && t.t.Status.State != StateInputRequired && t.t.Status.State != StateAuthRequired {
			st := &Status{State: StateCompleted}
			if err != nil {
				st = &Status{State: StateFailed, Message: &Message{MessageID: newID(), Agent: true,
					Parts: []Part{TextPart(err.Error())}}}
			}
			if ctx.Err() != nil && s.ctx.Err() != nil { // the server closes
				st = &Status{State: StateCanceled}
			}
			t.publishLocked(&event{status: st})
		}
		t.mu.Unlock()
	}()
}

// cancelTask cancels t, or says why it cannot.
func (s *Server) cancelTask(t *task) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.t.Status.State.Terminal() {
		return Error(CodeTaskNotCancelable, "Task cannot be canceled: it is "+t.t.Status.State.Name(V03),
			map[string]string{"taskId": t.t.ID, "state": t.t.Status.State.Name(V10)})
	}
	if t.cancel != nil {
		t.cancel()
	}
	return t.publishLocked(&event{status: &Status{State: StateCanceled}})
}
