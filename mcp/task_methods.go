package mcp

// NOTE: the tasks extension's methods (tasks/get, tasks/update,
// tasks/cancel), its capability and its notifications/tasks on
// subscriptions/listen streams (task.go has the tasks). The methods are
// 2026-07-28's only, and answer MissingRequiredClientCapability to a
// request that did not declare the extension, before anything else.

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

const methodTaskNotify = "notifications/tasks"

func (s *Server) registerTasks() {
	for _, m := range []dispatch.Method{
		{Name: "tasks/get", Handler: dispatch.HandlerFunc(s.tasksGet), Inline: true},       // a task's status and outcome (tasks extension, 2026-07-28)
		{Name: "tasks/update", Handler: dispatch.HandlerFunc(s.tasksUpdate), Inline: true}, // answer a task's input requests (tasks extension)
		{Name: "tasks/cancel", Handler: dispatch.HandlerFunc(s.tasksCancel), Inline: true}, // cancel a task (tasks extension)
	} {
		if err := s.e.RegisterMethod(m); err != nil {
			panic(err) // the names are fixed and valid
		}
	}
}

// taskMethod reports whether method is one of the extension's.
func taskMethod(method []byte) bool {
	switch string(method) {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}

// offersTasks reports whether a tool of the server may run as a task
// (then server/discover advertises the extension).
func (s *Server) offersTasks() bool {
	for _, t := range s.tools {
		if t.Tasks != TaskForbidden {
			return true
		}
	}
	return false
}

// taskCaps adds the extension to server/discover's capabilities caps when
// a tool may run as a task.
func (s *Server) taskCaps(caps []byte) []byte {
	if !s.offersTasks() {
		return caps
	}
	out := append([]byte(nil), caps[:len(caps)-1]...)
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, `"extensions":{"`+ExtensionTasks+`":{}}}`...)
}

// taskOf begins a tasks/* call and finds its task.
func (s *Server) taskOf(ctx context.Context, params []byte, p *proto.Params) (c *call, own bool, t *task, err error) {
	c, own, err = s.begin(ctx, params, p)
	switch {
	case err != nil:
		return c, own, nil, err
	case !c.modern:
		return c, own, nil, methodNotFound() // the extension is 2026-07-28's
	case !hasExtension(c.meta.caps, ExtensionTasks):
		return c, own, nil, c.failed(missingTasks())
	case p.TaskID == nil:
		if p.TaskIDBad {
			return c, own, nil, invalidParams("taskId is a string")
		}
		return c, own, nil, invalidParams("the request needs the taskId of a task")
	}
	t, err = s.tasks.get(proto.Text(nil, p.TaskID, p.TaskIDEsc))
	return c, own, t, err
}

func (s *Server) tasksGet(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, t, err := s.taskOf(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append(t.appendDetail(append(dst, `{"resultType":"complete",`...)), '}'), nil
}

func (s *Server) tasksUpdate(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, t, err := s.taskOf(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	var given []inputEntry
	found := false
	var it decode.Iter
	if it.Reset(params) && it.IsObject() {
		for it.Next() {
			if decode.KeyEquals(it.Key(), "inputResponses") {
				found = true
				var st inputState
				if err := st.readResponses(it.Value()); err != nil {
					return dst, err
				}
				given = st.given
			}
		}
	}
	if !found {
		return dst, invalidParams("tasks/update needs inputResponses (an object)")
	}
	took, err := t.answer(given)
	if took {
		s.publishTask(t)
	}
	if err != nil {
		return dst, err
	}
	return emptyResult(dst, true), nil
}

func (s *Server) tasksCancel(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, t, err := s.taskOf(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	t.cancel("cancelled by the client")
	return emptyResult(dst, true), nil
}

// hasExtension reports whether caps (a ClientCapabilities object)
// declares extension id: a member of its "extensions" object that is an
// object.
func hasExtension(caps []byte, id string) bool {
	var it decode.Iter
	if !it.Reset(caps) || !it.IsObject() {
		return false
	}
	for it.Next() {
		if decode.KeyEquals(it.Key(), "extensions") {
			return hasCapability(it.Value(), id)
		}
	}
	return false
}

// missingTasks is MissingRequiredClientCapability for the extension.
func missingTasks() error {
	return dispatch.NewError(CodeMissingRequiredCapability, "Missing required client capability: extensions."+ExtensionTasks,
		[]byte(`{"requiredCapabilities":{"extensions":{"`+ExtensionTasks+`":{}}}}`))
}

// publishTask sends notifications/tasks, the task as tasks/get has it now,
// on the listen streams that asked for the task.
func (s *Server) publishTask(t *task) {
	var ls []*listener
	s.listen.mu.Lock()
	for l := range s.listen.set {
		if l.tasks[t.id] {
			ls = append(ls, l)
		}
	}
	s.listen.mu.Unlock()
	if len(ls) == 0 {
		return
	}
	t.mu.Lock()
	extra := t.appendDetail([]byte{','})
	t.mu.Unlock()
	for _, l := range ls {
		l.send(methodTaskNotify, extra)
	}
}

// honourTasks returns the task ids of a listen filter the server agrees
// to send notifications/tasks for (those it keeps), and the members of the
// acknowledgment for them. A filter with task ids from a request that did
// not declare the extension is refused.
func (s *Server) honourTasks(c *call, ids []string) (map[string]bool, []byte, error) {
	if len(ids) == 0 {
		return nil, nil, nil
	}
	if !hasExtension(c.meta.caps, ExtensionTasks) {
		return nil, nil, c.failed(missingTasks())
	}
	set := map[string]bool{}
	ack := []byte(`,"taskIds":[`)
	for _, id := range ids {
		if t, _ := s.tasks.get([]byte(id)); t == nil || set[id] {
			continue
		}
		if len(set) > 0 {
			ack = append(ack, ',')
		}
		set[id] = true
		ack = encode.AppendString(ack, id)
	}
	return set, append(ack, ']'), nil
}
