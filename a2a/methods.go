package a2a

// NOTE: the methods of both wires (register): one handler per operation,
// bound by dispatch.Typed, with the wire's name for it. The request's own
// state (its wire, headers, and the stream a streaming method opens) is in
// reqState, which the HTTP endpoint puts in the call's context.

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// method names: [V03, V10].
var methodNames = map[string][2]string{
	"send":       {"message/send", "SendMessage"},
	"stream":     {"message/stream", "SendStreamingMessage"},
	"get":        {"tasks/get", "GetTask"},
	"list":       {"tasks/list", "ListTasks"},
	"cancel":     {"tasks/cancel", "CancelTask"},
	"subscribe":  {"tasks/resubscribe", "SubscribeToTask"},
	"pushSet":    {"tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"},
	"pushGet":    {"tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"},
	"pushList":   {"tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"},
	"pushDelete": {"tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"},
	"card":       {"agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"},
}

type stateKey struct{}

// reqState is a request's state beside its calls.
type reqState struct {
	w           Wire
	batch       bool
	extensions  string // A2A-Extensions (X-A2A-Extensions)
	lastEventID string
	hasLast     bool
	url         string // this endpoint's URL, for the extended card
	streaming   bool   // a streaming method was called: errors go as SSE too
	authed      bool   // the HTTP layer authenticated the request (nethttp.RequestIdentity)
	plan        *streamPlan
}

// streamPlan is the SSE stream a streaming call opened.
type streamPlan struct {
	t  *task
	sb *sub
	id []byte // the call's id
	// drain: the task was terminal at attach; the stream ends with what
	// is queued.
	drain bool
	// done is closed when nothing more is queued (following another
	// replica's task: replica.go); stop ends that follow. Both nil for a
	// task of this replica.
	done <-chan struct{}
	stop func()
}

func stateOf(ctx context.Context) *reqState {
	if rs, ok := ctx.Value(stateKey{}).(*reqState); ok {
		return rs
	}
	return &reqState{}
}

type raw = json.RawMessage

func (s *Server) register(w Wire) error {
	e := s.eng[w]
	reg := func(op string, h dispatch.Handler) error {
		return e.Register(methodNames[op][w], h)
	}
	for _, r := range []struct {
		op string
		h  dispatch.Handler
	}{
		{"send", dispatch.Typed(func(ctx context.Context, p sendParams) (raw, error) { return s.send(ctx, w, &p, false) })},
		{"stream", dispatch.Typed(func(ctx context.Context, p sendParams) (raw, error) { return s.send(ctx, w, &p, true) })},
		{"get", dispatch.Typed(func(ctx context.Context, p taskParams) (raw, error) { return s.get(w, &p) })},
		{"list", dispatch.Typed(func(ctx context.Context, p listParams) (raw, error) { return s.list(w, &p) })},
		{"cancel", dispatch.Typed(func(ctx context.Context, p taskParams) (raw, error) { return s.cancel(w, &p) })},
		{"subscribe", dispatch.Typed(func(ctx context.Context, p taskParams) (raw, error) { return s.subscribe(ctx, &p) })},
		{"card", dispatch.Typed(func(ctx context.Context, p struct{}) (raw, error) { return s.extendedCard(ctx) })},
	} {
		if err := reg(r.op, r.h); err != nil {
			return err
		}
	}
	if w == V03 {
		for _, r := range []struct {
			op string
			h  dispatch.Handler
		}{
			{"pushSet", dispatch.Typed(func(ctx context.Context, p pushSetParams03) (raw, error) {
				return s.pushSet(w, p.TaskID, p.PushNotificationConfig)
			})},
			{"pushGet", dispatch.Typed(func(ctx context.Context, p pushIDParams03) (raw, error) {
				return s.pushGet(w, p.ID, p.PushNotificationConfigID)
			})},
			{"pushList", dispatch.Typed(func(ctx context.Context, p pushIDParams03) (raw, error) { return s.pushList(w, p.ID) })},
			{"pushDelete", dispatch.Typed(func(ctx context.Context, p pushIDParams03) (raw, error) {
				return s.pushDelete(w, p.ID, p.PushNotificationConfigID)
			})},
		} {
			if err := reg(r.op, r.h); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range []struct {
		op string
		h  dispatch.Handler
	}{
		{"pushSet", dispatch.Typed(func(ctx context.Context, p pushIn) (raw, error) {
			id := p.TaskID
			return s.pushSet(w, &id, &p)
		})},
		{"pushGet", dispatch.Typed(func(ctx context.Context, p pushIDParams10) (raw, error) { return s.pushGet(w, p.TaskID, p.ID) })},
		{"pushList", dispatch.Typed(func(ctx context.Context, p pushIDParams10) (raw, error) { return s.pushList(w, p.TaskID) })},
		{"pushDelete", dispatch.Typed(func(ctx context.Context, p pushIDParams10) (raw, error) { return s.pushDelete(w, p.TaskID, p.ID) })},
	} {
		if err := reg(r.op, r.h); err != nil {
			return err
		}
	}
	return nil
}

// checkExtensions is -32008 when a required extension is not named.
func (s *Server) checkExtensions(rs *reqState) error {
	for _, x := range s.card.Extensions {
		if !x.Required {
			continue
		}
		found := false
		for _, name := range strings.Split(rs.extensions, ",") {
			if strings.TrimSpace(name) == x.URI {
				found = true
			}
		}
		if !found {
			return Error(CodeExtensionSupportRequired, "Extension support required: "+x.URI, map[string]string{"extension": x.URI})
		}
	}
	return nil
}

// acceptsText reports whether the accepted output modes include text.
func acceptsText(modes []string) bool {
	if len(modes) == 0 {
		return true
	}
	for _, m := range modes {
		switch strings.ToLower(strings.TrimSpace(m)) {
		case "text", "text/plain", "text/*", "*/*", "*":
			return true
		}
	}
	return false
}

func (s *Server) send(ctx context.Context, w Wire, p *sendParams, streaming bool) (raw, error) {
	rs := stateOf(ctx)
	rs.streaming = streaming
	if streaming && !s.card.Streaming {
		return nil, Error(CodeUnsupportedOperation, "Streaming is not supported", nil)
	}
	if streaming && rs.batch {
		return nil, Error(CodeUnsupportedOperation, "A streaming method cannot be part of a batch", nil)
	}
	if err := s.checkExtensions(rs); err != nil {
		return nil, err
	}
	m, err := toMessage(w, p.Message)
	if err != nil {
		return nil, err
	}
	if m.Agent {
		return nil, invalidParams("message.role", "a client sends user messages")
	}
	if !isObjectOrNull(p.Metadata) {
		return nil, invalidParams("metadata", "must be an object")
	}
	hl, blocking := -1, w == V10
	var push *pushIn
	if c := p.Configuration; c != nil {
		if hl, err = checkHistory("configuration.historyLength", c.HistoryLength); err != nil {
			return nil, err
		}
		if !acceptsText(c.AcceptedOutputModes) {
			return nil, Error(CodeContentTypeNotSupported, "Incompatible content types: the agent answers text/plain",
				map[string]string{"accepted": strings.Join(c.AcceptedOutputModes, ",")})
		}
		if w == V03 && c.Blocking != nil {
			blocking = *c.Blocking
		}
		if w == V10 && c.ReturnImmediately != nil {
			blocking = !*c.ReturnImmediately
		}
		push = c.PushNotificationConfig
		if w == V10 {
			push = c.TaskPushNotificationConfig
		}
	}
	var pc pushConfig
	if push != nil {
		if pc, err = s.checkPush(w, push); err != nil {
			return nil, err
		}
	}
	var t *task
	if m.TaskID != "" {
		if t, err = s.lookupLocal(&m.TaskID, CodeUnsupportedOperation); err != nil {
			return nil, err
		}
		if err = s.follow(w, t, &m); err != nil {
			return nil, err
		}
	} else {
		t = s.newTask(&m, p.Metadata)
	}
	if push != nil {
		t.mu.Lock()
		t.addPush(pc)
		t.mu.Unlock()
	}
	if streaming {
		sb, drain, err := t.attachPlan(true, 0)
		if err != nil {
			return nil, err
		}
		rs.plan = &streamPlan{t: t, sb: sb, id: append([]byte(nil), dispatch.RequestID(ctx)...), drain: drain}
	}
	if m.TaskID == t.t.ID && t.fresh() {
		s.start(t, m)
	}
	if streaming {
		return raw("null"), nil
	}
	if blocking {
		t.wait(ctx)
	}
	snap, _ := t.snapshot()
	b := []byte(nil)
	if w == V10 {
		b = append(b, `{"task":`...)
	}
	b = appender{w}.task(b, snap, hl)
	if w == V10 {
		b = append(b, '}')
	}
	return b, nil
}

// fresh reports whether t has not run yet (and marks it as run).
func (t *task) fresh() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil || t.t.Status.State.Terminal() {
		return false
	}
	return true
}

// follow adds a user's message to an existing task: -32004 when it is
// terminal; an input-required task runs again.
func (s *Server) follow(w Wire, t *task, m *Message) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.t.Status.State.Terminal() {
		if w == V03 { // as the 0.3 reference agent does: recorded, nothing runs
			m.ContextID = t.t.ContextID
			t.t.History = append(t.t.History, *m)
			return nil
		}
		return Error(CodeUnsupportedOperation, "Task is in a terminal state ("+t.t.Status.State.Name(V03)+") and takes no more messages",
			map[string]string{"taskId": t.t.ID})
	}
	if m.ContextID != "" && m.ContextID != t.t.ContextID {
		return invalidParams("message.contextId", "does not match the task's")
	}
	m.ContextID = t.t.ContextID
	t.t.History = append(t.t.History, *m)
	if !t.running && (t.t.Status.State == StateInputRequired || t.t.Status.State == StateAuthRequired) {
		t.cancel = nil // start runs it again
	}
	return nil
}

// attachPlan attaches a subscriber; drain reports that the task is
// terminal, so that the stream ends with what it was given.
func (t *task) attachPlan(replay bool, after uint64) (*sub, bool, error) {
	sb, err := t.attach(replay, after)
	if err != nil {
		return nil, false, err
	}
	t.mu.Lock()
	_, live := t.subs[sb]
	t.mu.Unlock()
	return sb, !live, nil
}

func (s *Server) get(w Wire, p *taskParams) (raw, error) {
	hl, err := checkHistory("historyLength", p.HistoryLength)
	if err != nil {
		return nil, err
	}
	t, err := s.lookup(p.ID)
	if err != nil {
		return nil, err
	}
	snap, _ := t.snapshot()
	return appender{w}.task(nil, snap, hl), nil
}

func (s *Server) cancel(w Wire, p *taskParams) (raw, error) {
	t, err := s.lookupLocal(p.ID, CodeTaskNotCancelable)
	if err != nil {
		return nil, err
	}
	if err := s.cancelTask(t); err != nil {
		return nil, err
	}
	snap, _ := t.snapshot()
	return appender{w}.task(nil, snap, -1), nil
}

func (s *Server) subscribe(ctx context.Context, p *taskParams) (raw, error) {
	rs := stateOf(ctx)
	rs.streaming = true
	if !s.card.Streaming {
		return nil, Error(CodeUnsupportedOperation, "Streaming is not supported", nil)
	}
	if rs.batch {
		return nil, Error(CodeUnsupportedOperation, "A streaming method cannot be part of a batch", nil)
	}
	t, err := s.lookup(p.ID)
	if err != nil {
		return nil, err
	}
	var after uint64
	if rs.hasLast {
		if after, err = strconv.ParseUint(strings.TrimSpace(rs.lastEventID), 10, 64); err != nil {
			return nil, invalidParams("Last-Event-ID", "not an event id of this server")
		}
	} else if snap, _ := t.snapshot(); snap.Status.State.Terminal() {
		return nil, Error(CodeUnsupportedOperation, "Task is in a terminal state ("+snap.Status.State.Name(V03)+"): nothing to subscribe to",
			map[string]string{"taskId": snap.ID})
	}
	var plan *streamPlan
	if t.remote {
		plan, err = s.subscribeRemote(t, !rs.hasLast, after)
	} else {
		var sb *sub
		var drain bool
		sb, drain, err = t.attachPlan(rs.hasLast, after)
		plan = &streamPlan{t: t, sb: sb, drain: drain}
	}
	if err != nil {
		return nil, err
	}
	plan.id = append([]byte(nil), dispatch.RequestID(ctx)...)
	rs.plan = plan
	return raw("null"), nil
}

func (s *Server) list(w Wire, p *listParams) (raw, error) {
	hl, err := checkHistory("historyLength", p.HistoryLength)
	if err != nil {
		return nil, err
	}
	size := 50
	if p.PageSize != nil {
		if size = *p.PageSize; size < 1 || size > 100 {
			return nil, invalidParams("pageSize", "must be 1 to 100")
		}
	}
	offset := 0
	if p.PageToken != "" {
		if offset, err = strconv.Atoi(p.PageToken); err != nil || offset < 0 {
			return nil, invalidParams("pageToken", "not a page token of this server")
		}
	}
	var state State
	if p.Status != "" && p.Status != "TASK_STATE_UNSPECIFIED" {
		var ok bool
		if state, ok = parseState(p.Status); !ok {
			return nil, invalidParams("status", "unknown state "+quote(p.Status))
		}
	}
	s.mu.Lock()
	ts := make([]*task, 0, len(s.order))
	for i := len(s.order) - 1; i >= 0; i-- { // newest first
		if t := s.tasks[s.order[i]]; t != nil {
			ts = append(ts, t)
		}
	}
	s.mu.Unlock()
	var snaps []*Task
	for _, t := range ts {
		snap, _ := t.snapshot()
		if (p.ContextID == "" || snap.ContextID == p.ContextID) && (state == 0 || snap.Status.State == state) {
			snaps = append(snaps, snap)
		}
	}
	total := len(snaps)
	if offset > total {
		offset = total
	}
	page := snaps[offset:min(offset+size, total)]
	a := appender{w}
	b := []byte(`{"tasks":[`)
	for i, snap := range page {
		if i > 0 {
			b = append(b, ',')
		}
		if p.IncludeArtifacts == nil || !*p.IncludeArtifacts {
			snap.Artifacts = nil
		}
		b = a.task(b, snap, hl)
	}
	b = append(b, `],"nextPageToken":`...)
	next := ""
	if offset+size < total {
		next = strconv.Itoa(offset + size)
	}
	b = encode.AppendString(b, next)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"totalSize":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	return append(b, '}'), nil
}

func (s *Server) extendedCard(ctx context.Context) (raw, error) {
	if s.card.ExtendedSkills == nil {
		return nil, Error(CodeExtendedCardNotConfigured, "", nil)
	}
	if !stateOf(ctx).authed {
		return nil, Error(CodeExtendedCardNotConfigured, "The extended card needs an authenticated request (jetrpc serve --jwt-secret or --tokens)",
			map[string]string{"reason": "unauthenticated"})
	}
	return s.card.document(stateOf(ctx).url, true, s.security.Load()), nil
}

// checkPush validates a push config.
func (s *Server) checkPush(w Wire, in *pushIn) (pushConfig, error) {
	if !s.card.PushNotifications {
		return pushConfig{}, Error(CodePushNotificationNotSupported, "", nil)
	}
	if in == nil {
		return pushConfig{}, invalidParams("pushNotificationConfig", "required")
	}
	if in.URL == nil || *in.URL == "" {
		return pushConfig{}, invalidParams("url", "required")
	}
	if problem := checkWebhook(s.ctx, s.lookupHost, *in.URL, s.allowPrivate); problem != "" {
		return pushConfig{}, invalidParams("url", problem)
	}
	pc := pushConfig{ID: in.ID, URL: *in.URL, Token: in.Token, wire: w}
	if a := in.Authentication; a != nil {
		pc.Scheme, pc.Credentials = a.Scheme, a.Credentials
		if pc.Scheme == "" && len(a.Schemes) > 0 {
			pc.Scheme = a.Schemes[0]
		}
	}
	return pc, nil
}

func (s *Server) pushSet(w Wire, taskID *string, in *pushIn) (raw, error) {
	if !s.card.PushNotifications {
		return nil, Error(CodePushNotificationNotSupported, "", nil)
	}
	if taskID == nil || *taskID == "" {
		return nil, invalidParams("taskId", "required")
	}
	pc, err := s.checkPush(w, in)
	if err != nil {
		return nil, err
	}
	t, err := s.lookupLocal(taskID, CodeUnsupportedOperation)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	pc = t.addPush(pc)
	t.mu.Unlock()
	return pc.append(nil, w, t.t.ID), nil
}

func (s *Server) pushTask(taskID *string) (*task, error) {
	if !s.card.PushNotifications {
		return nil, Error(CodePushNotificationNotSupported, "", nil)
	}
	return s.lookupLocal(taskID, CodeUnsupportedOperation)
}

func (s *Server) pushGet(w Wire, taskID *string, id string) (raw, error) {
	t, err := s.pushTask(taskID)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pc := range t.push {
		if id == "" || pc.ID == id {
			return pc.append(nil, w, t.t.ID), nil
		}
	}
	return nil, Error(CodeTaskNotFound, "Push notification config not found", map[string]string{"taskId": t.t.ID, "configId": id})
}

func (s *Server) pushList(w Wire, taskID *string) (raw, error) {
	t, err := s.pushTask(taskID)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := []byte(nil)
	if w == V10 {
		b = append(b, `{"configs":`...)
	}
	b = append(b, '[')
	for i, pc := range t.push {
		if i > 0 {
			b = append(b, ',')
		}
		b = pc.append(b, w, t.t.ID)
	}
	b = append(b, ']')
	if w == V10 {
		b = append(b, '}')
	}
	return b, nil
}

func (s *Server) pushDelete(w Wire, taskID *string, id string) (raw, error) {
	t, err := s.pushTask(taskID)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, invalidParams("pushNotificationConfigId", "required")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, pc := range t.push {
		if pc.ID == id {
			t.push = append(t.push[:i], t.push[i+1:]...)
			if w == V10 {
				return raw("{}"), nil
			}
			return raw("null"), nil
		}
	}
	return nil, Error(CodeTaskNotFound, "Push notification config not found", map[string]string{"taskId": t.t.ID, "configId": id})
}
