package mcp

// NOTE: the tasks extension (io.modelcontextprotocol/tasks, SEP-2663) on
// 2026-07-28. A tool that may run long declares Tool.Tasks; its handler
// hands the work to RunTask. When the request declared the extension in
// its _meta capabilities, RunTask records a task, starts the work on a
// goroutine of its own and the call answers a CreateTaskResult at once;
// otherwise the work runs inline and the call answers its result, as
// without tasks. The client polls tasks/get, answers the task's input
// requests (Ask, inside the work) with tasks/update and cancels it with
// tasks/cancel (task_methods.go); subscriptions/listen streams that asked
// for a task's id get notifications/tasks on each of its changes.
//
// Tasks live in the Server's memory (taskStore), created before the
// CreateTaskResult is written, so a tasks/get right after it finds the
// task. Their ids are 128 random bits: whoever knows one may poll and
// cancel it, as on any replica-less server; a deployment of several
// replicas routes tasks/* by the Mcp-Name header, which carries the id.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// ExtensionTasks is the tasks extension's identifier, as clients declare it
// under their capabilities' "extensions" and server/discover advertises it.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool's calls may run as tasks.
type TaskSupport uint8

const (
	// TaskForbidden: the tool always answers its result (the default);
	// RunTask runs the work inline.
	TaskForbidden TaskSupport = iota
	// TaskOptional: RunTask makes a task when the request declared the
	// extension, and runs the work inline otherwise.
	TaskOptional
	// TaskRequired: the tool can only run as a task. A request that did not
	// declare the extension (every request of the initialize-based
	// revisions) is refused with MissingRequiredClientCapability (-32021)
	// before the handler runs.
	TaskRequired
)

// TaskOptions bound the tasks a Server keeps (Server.SetTaskOptions).
type TaskOptions struct {
	// TTL is how long a task is kept from its creation (ttlMs): after it,
	// tasks/get answers that the task has expired, and a task still
	// running is cancelled. Default one hour.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients
	// (pollIntervalMs). Default one second.
	PollInterval time.Duration
	// MaxTasks bounds the tasks kept at once (default 10,000). At the
	// bound the oldest ended or expired tasks are forgotten; when every
	// task kept is still running, a TaskOptional tool runs inline and a
	// TaskRequired one fails with Internal error.
	MaxTasks int
}

// ErrTaskTTL is SetTaskOptions' error for a TTL or PollInterval below a
// millisecond (both go out in integer milliseconds), or a negative
// MaxTasks.
var ErrTaskTTL = errors.New("mcp: a task's TTL and poll interval are at least a millisecond, and MaxTasks is not negative")

// SetTaskOptions sets the bounds of the server's tasks; zero fields keep
// their defaults. It fails once serving.
func (s *Server) SetTaskOptions(o TaskOptions) error {
	if o.TTL != 0 && o.TTL < time.Millisecond || o.PollInterval != 0 && o.PollInterval < time.Millisecond || o.MaxTasks < 0 {
		return ErrTaskTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return ErrFrozen
	}
	s.tasks.opts = o
	return nil
}

// RunTask runs work, the body of a tool's handler, as a task when it can:
// in a tools/call of a tool whose Tasks is not TaskForbidden, from a
// request that declared the tasks extension. Then it records the task,
// starts work on a goroutine with a context of its own and returns nil,
// nil at once: the call answers the CreateTaskResult, whatever the handler
// returns. Otherwise it runs work inline and returns what work returns.
// A handler returns RunTask's results:
//
//	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) { ... })
//
// Work's outcome becomes the task's: its Result (with IsError, a failed
// tool) or a plain error (a failed Result saying it) make the task
// completed; a *encode.Error or a panic makes it failed, with that
// error or Internal error. Inside a task, Ask surfaces its requests as the
// task's inputRequests and waits for tasks/update to answer them; Progress
// and Log send nothing (tasks have no stream); the context ends when the
// task is cancelled or expires. It carries the request's client
// capabilities but none of its context's values. Whatever the handler does
// before RunTask, such as asking for input (then RunTask is reached in the
// round that has the answers), happens in the request itself.
func RunTask(ctx context.Context, work func(ctx context.Context) (*Result, error)) (*Result, error) {
	c := callOf(ctx)
	if c == nil || !c.taskOK || c.task != nil {
		return work(ctx)
	}
	t := c.srv.tasks.create(c)
	if t == nil { // every task kept is running
		if c.taskReq {
			return nil, dispatch.NewError(encode.CodeInternalError, "Internal error",
				[]byte(`"too many tasks are running; retry later"`))
		}
		return work(ctx)
	}
	c.task = t
	go t.run(work)
	return nil, nil
}

// The statuses of a task.
const (
	taskWorking   = "working"
	taskInput     = "input_required"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// task is one task: its state, and the call its work runs under.
type task struct {
	id      string
	srv     *Server
	c       *call // the work's context
	created time.Time
	ttl     time.Duration
	poll    time.Duration

	mu      sync.Mutex
	status  string
	expired bool // its TTL passed: kept only to say so (taskStore.expire)
	updated time.Time
	result  []byte          // completed: the CallToolResult
	err     []byte          // failed: the JSON-RPC error object
	note    []byte          // cancelled: the statusMessage, a JSON string
	pending []*taskAsk      // the input requests not answered yet
	used    map[string]bool // every input request key the task used
	wake    chan struct{}   // closed when an answer comes or the task ends
}

// taskAsk is one input request of a task.
type taskAsk struct {
	key string        // the task's key for it
	raw []byte        // {"method":...,"params":...}
	req *InputRequest // whose Result takes the answer
}

func (t *task) terminal() bool {
	return t.status == taskCompleted || t.status == taskFailed || t.status == taskCancelled
}

// run runs work and records its outcome.
func (t *task) run(work func(ctx context.Context) (*Result, error)) {
	defer func() {
		if p := recover(); p != nil {
			t.srv.log.Error("mcp: a task's work panicked", "task", t.id, "panic", fmt.Sprint(p))
			e := encode.AppendString([]byte(`{"code":-32603,"message":"Internal error","data":`), fmt.Sprint(p))
			t.finish(taskFailed, nil, append(e, '}'))
		}
	}()
	r, err := work(t.c)
	var re *encode.Error
	switch {
	case errors.As(err, &re):
		e := strconv.AppendInt([]byte(`{"code":`), int64(re.Code), 10)
		e = encode.AppendString(append(e, `,"message":`...), re.Message)
		if len(re.Data) > 0 {
			e = appendOneLine(append(e, `,"data":`...), re.Data)
		}
		t.finish(taskFailed, nil, append(e, '}'))
	case err != nil:
		t.finish(taskCompleted, ErrorResult(err.Error()).appendTo(nil, true), nil)
	default:
		if r == nil {
			r = &Result{}
		}
		t.finish(taskCompleted, r.appendTo(nil, true), nil)
	}
}

// finish ends the task with status, unless it has ended (cancelled).
func (t *task) finish(status string, result, rpcErr []byte) {
	t.mu.Lock()
	if t.terminal() {
		t.mu.Unlock()
		return
	}
	t.status, t.result, t.err = status, result, rpcErr
	t.endLocked()
	t.mu.Unlock()
	t.srv.publishTask(t)
}

// endLocked drops what a running task holds, once it has ended.
func (t *task) endLocked() {
	t.updated = time.Now()
	t.pending = nil
	if t.wake != nil {
		close(t.wake)
		t.wake = nil
	}
}

// cancel cancels the task (tasks/cancel, its TTL): it is cancelled at once,
// and its work's context ends. It reports whether the task was running.
func (t *task) cancel(why string) bool {
	t.mu.Lock()
	if t.terminal() {
		t.mu.Unlock()
		return false
	}
	t.status = taskCancelled
	t.note = encode.AppendString(nil, why)
	t.endLocked()
	t.mu.Unlock()
	t.c.cancel()
	t.srv.publishTask(t)
	return true
}

// ask surfaces reqs as the task's input requests and waits until
// tasks/update has answered them all, or the task ends.
func (t *task) ask(reqs []InputRequest) error {
	asks := make([]*taskAsk, len(reqs))
	for i := range reqs {
		raw, err := inputRequestJSON(&reqs[i])
		if err != nil {
			return err
		}
		asks[i] = &taskAsk{raw: raw, req: &reqs[i]}
	}
	t.mu.Lock()
	if t.terminal() {
		t.mu.Unlock()
		return context.Canceled
	}
	for _, a := range asks {
		a.key = t.mint(a.req.Key)
	}
	t.pending = append(t.pending, asks...)
	t.status, t.updated = taskInput, time.Now()
	if t.wake == nil {
		t.wake = make(chan struct{})
	}
	wake := t.wake
	t.mu.Unlock()
	t.srv.publishTask(t)
	for {
		<-wake
		t.mu.Lock()
		if t.terminal() {
			t.mu.Unlock()
			return context.Canceled
		}
		left := false
		for _, a := range asks {
			for _, p := range t.pending {
				left = left || p == a
			}
		}
		if !left {
			t.mu.Unlock()
			return nil
		}
		if t.wake == nil {
			t.wake = make(chan struct{})
		}
		wake = t.wake
		t.mu.Unlock()
	}
}

// mint returns a key for an input request of the task: the handler's own
// the first time, then made unique, since a task never reuses a key.
func (t *task) mint(key string) string {
	if t.used == nil {
		t.used = map[string]bool{}
	}
	k := key
	for n := 2; t.used[k]; n++ {
		k = key + "-" + strconv.Itoa(n)
	}
	t.used[k] = true
	return k
}

// answer takes tasks/update's answers: each one for a pending key is
// decoded into its request's Result and the key is no longer pending;
// answers for other keys are ignored. An answer that is not an object or
// does not decode is refused (Invalid params), its key still pending. It
// reports whether it took any.
func (t *task) answer(given []inputEntry) (took bool, refused error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.terminal() {
		return false, nil
	}
	for _, g := range given {
		i := t.find(g.key)
		if i < 0 {
			continue
		}
		a := t.pending[i]
		if len(g.raw) == 0 || g.raw[0] != '{' {
			refused = invalidData("inputResponses[\"" + g.key + "\"] is not an object")
			continue
		}
		if a.req.Result != nil {
			if err := json.Unmarshal(g.raw, a.req.Result); err != nil {
				refused = invalidData("inputResponses[\"" + g.key + "\"] does not fit the " + a.req.Method + " result: " + err.Error())
				continue
			}
		}
		t.pending = append(t.pending[:i], t.pending[i+1:]...)
		t.updated, took = time.Now(), true
		if t.wake != nil {
			close(t.wake) // the asker checks whether its requests are answered
			t.wake = nil
		}
	}
	if len(t.pending) == 0 && t.status == taskInput {
		t.status = taskWorking
	}
	return took, refused
}

func (t *task) find(key string) int {
	for i, p := range t.pending {
		if p.key == key {
			return i
		}
	}
	return -1
}

// invalidData is Invalid params with why as its data.
func invalidData(why string) error {
	return dispatch.NewError(encode.CodeInvalidParams, "Invalid params", encode.AppendString(nil, why))
}

const isoMillis = "2006-01-02T15:04:05.000Z"

// appendBase appends the Task members (after an object's opening, with
// no comma before): id, status, times and hints.
func (t *task) appendBase(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `"taskId":`...), t.id)
	dst = encode.AppendString(append(dst, `,"status":`...), t.status)
	dst = append(t.created.UTC().AppendFormat(append(dst, `,"createdAt":"`...), isoMillis), '"')
	dst = append(t.updated.UTC().AppendFormat(append(dst, `,"lastUpdatedAt":"`...), isoMillis), '"')
	dst = strconv.AppendInt(append(dst, `,"ttlMs":`...), t.ttl.Milliseconds(), 10)
	return strconv.AppendInt(append(dst, `,"pollIntervalMs":`...), t.poll.Milliseconds(), 10)
}

// appendDetail appends the DetailedTask members: the base and the
// status's payload (inputRequests, result, error or statusMessage).
func (t *task) appendDetail(dst []byte) []byte {
	dst = t.appendBase(dst)
	switch t.status {
	case taskInput:
		dst = append(dst, `,"inputRequests":{`...)
		for i, p := range t.pending {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(encode.AppendString(dst, p.key), ':'), p.raw...)
		}
		dst = append(dst, '}')
	case taskCompleted:
		dst = append(append(dst, `,"result":`...), t.result...)
	case taskFailed:
		dst = append(append(dst, `,"statusMessage":"the work failed","error":`...), t.err...)
	case taskCancelled:
		dst = append(append(dst, `,"statusMessage":`...), t.note...)
	}
	return dst
}

// appendCreated appends the CreateTaskResult: the task's seed state
// (working, as created), whatever its work has done since.
func (t *task) appendCreated(dst []byte) []byte {
	seed := task{id: t.id, status: taskWorking, created: t.created, updated: t.created, ttl: t.ttl, poll: t.poll}
	return append(seed.appendBase(append(dst, `{"resultType":"task",`...)), '}')
}

// taskStore is the Server's tasks.
type taskStore struct {
	opts TaskOptions

	mu    sync.Mutex
	byID  map[string]*task
	order []*task // by creation, for the bound
}

func (ts *taskStore) defaults() (ttl, poll time.Duration, max int) {
	ttl, poll, max = ts.opts.TTL, ts.opts.PollInterval, ts.opts.MaxTasks
	if ttl == 0 {
		ttl = time.Hour
	}
	if poll == 0 {
		poll = time.Second
	}
	if max == 0 {
		max = 10000
	}
	return ttl, poll, max
}

// create records a task for call c; nil when the bound is reached and
// every task kept is running.
func (ts *taskStore) create(c *call) *task {
	ttl, poll, max := ts.defaults()
	now := time.Now()
	t := &task{id: newTaskID(), srv: c.srv, created: now, updated: now, ttl: ttl, poll: poll, status: taskWorking}
	tc := &call{parent: context.Background(), srv: c.srv, modern: true, version: Modern, task: t}
	tc.meta.caps = append([]byte(nil), c.meta.caps...)
	t.c = tc
	var expired []*task
	ts.mu.Lock()
	if ts.byID == nil {
		ts.byID = map[string]*task{}
	}
	if len(ts.byID) >= max {
		expired = ts.evict(now, max)
	}
	ok := len(ts.byID) < max
	if ok {
		ts.byID[t.id] = t
		ts.order = append(ts.order, t)
	}
	ts.mu.Unlock()
	for _, e := range expired {
		e.expire()
	}
	if !ok {
		return nil
	}
	time.AfterFunc(ttl, t.expire)
	return t
}

// expire ends t, its TTL past: it is cancelled if it still runs, and
// drops its outcome. The store keeps it, a few words, so that tasks/get
// can say it expired, until the bound evicts it (first among the tasks).
func (t *task) expire() {
	t.cancel("the task expired")
	t.mu.Lock()
	t.expired = true
	t.result, t.err, t.note = nil, nil, nil
	t.mu.Unlock()
}

// evict forgets, in one walk from the oldest, a sixteenth of the bound
// of the tasks that have ended or expired; it returns the expired ones
// still running, for the caller to cancel.
func (ts *taskStore) evict(now time.Time, max int) (expired []*task) {
	want := max/16 + 1
	keep := ts.order[:0]
	for _, t := range ts.order {
		if want > 0 {
			t.mu.Lock()
			done, old := t.terminal(), now.Sub(t.created) > t.ttl
			t.mu.Unlock()
			if done || old {
				delete(ts.byID, t.id)
				if !done {
					expired = append(expired, t)
				}
				want--
				continue
			}
		}
		keep = append(keep, t)
	}
	clear(ts.order[len(keep):])
	ts.order = keep
	return expired
}

// get returns the task id; nil, with the error to answer, when it is
// unknown or expired (an expired one is forgotten, and cancelled if it
// still ran).
func (ts *taskStore) get(id []byte) (*task, error) {
	ts.mu.Lock()
	t := ts.byID[string(id)]
	ts.mu.Unlock()
	if t == nil {
		return nil, invalidData("Failed to retrieve task: Task not found")
	}
	t.mu.Lock()
	expired := t.expired
	t.mu.Unlock()
	if !expired && time.Since(t.created) > t.ttl {
		t.expire() // before its timer, which may be late
		expired = true
	}
	if expired {
		return nil, invalidData("Failed to retrieve task: Task has expired")
	}
	return t, nil
}

// cancelAll cancels every running task (Server.Close).
func (ts *taskStore) cancelAll() {
	ts.mu.Lock()
	var all []*task
	for _, t := range ts.byID {
		all = append(all, t)
	}
	ts.mu.Unlock()
	for _, t := range all {
		t.cancel("the server shut down")
	}
}

// Tasks returns how many tasks the server keeps, running or ended (not
// those whose TTL passed).
func (s *Server) Tasks() int {
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	n := 0
	for _, t := range s.tasks.byID {
		t.mu.Lock()
		if !t.expired {
			n++
		}
		t.mu.Unlock()
	}
	return n
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
