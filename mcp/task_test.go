package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/stretchr/testify/require"
)

const (
	taskExt  = `"extensions":{"io.modelcontextprotocol/tasks":{}}`
	taskCaps = `{` + taskExt + `}`
	askCaps  = `{"elicitation":{},"roots":{},` + taskExt + `}`
	// noTasks is -32021's data for the extension.
	noTasks = `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	nobody  = "00000000000000000000000000000000" // a task id no server made
)

var askSchema = json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}}}`)

// taskView is a CreateTaskResult or a tasks/get result.
type taskView struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	CreatedAt      time.Time                  `json:"createdAt"`
	LastUpdatedAt  time.Time                  `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs *int64                     `json:"pollIntervalMs"`
	StatusMessage  string                     `json:"statusMessage"`
	Result         json.RawMessage            `json:"result"`
	Error          json.RawMessage            `json:"error"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
}

// taskTool is a tool whose handler hands work to RunTask.
func taskTool(name string, support mcp.TaskSupport, work func(ctx context.Context) (*mcp.Result, error)) *mcp.Tool {
	tool := mcp.NewTool(name, "", noInput(func(ctx context.Context) (*mcp.Result, error) { return mcp.RunTask(ctx, work) }))
	tool.Tasks = support
	return tool
}

// waiting is work that returns text once release is closed, or the
// context's error when it ends first.
func waiting(release <-chan struct{}, text string) func(ctx context.Context) (*mcp.Result, error) {
	return func(ctx context.Context) (*mcp.Result, error) {
		select {
		case <-release:
			return mcp.TextResult(text), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// taskEnv is a Server with tools, served over HTTP on loopback.
type taskEnv struct {
	*endpoint
	s *mcp.Server
}

func newTaskEnv(t *testing.T, opts *mcp.TaskOptions, tools ...*mcp.Tool) *taskEnv {
	t.Helper()
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, &mcp.Options{Logger: slog.New(slog.DiscardHandler)}) // a panic is logged
	for _, tool := range tools {
		require.NoError(t, s.AddTool(tool))
	}
	if opts != nil {
		require.NoError(t, s.SetTaskOptions(*opts))
	}
	return &taskEnv{serveHTTP(t, s, nil), s}
}

// post sends body with headers h and returns the HTTP status and the
// JSON-RPC response.
func (e *taskEnv) post(h hdr, body string) (int, map[string]json.RawMessage) {
	e.t.Helper()
	res, b := e.do("POST", h, body)
	var msg map[string]json.RawMessage
	require.NoError(e.t, json.Unmarshal([]byte(b), &msg), b)
	return res.StatusCode, msg
}

// call is a 2026-07-28 tools/call of tool with args ("" for none) that
// declares caps.
func (e *taskEnv) call(tool, caps, args string) (int, map[string]json.RawMessage) {
	e.t.Helper()
	if args == "" {
		args = "{}"
	}
	return e.post(modernHdr("tools/call", tool), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`+caps+`}}}`)
}

func taskBody(method, id, caps, extra string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"taskId":"` + id + `"` + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
}

// rpc is a tasks/* request of method for task id; extra are more params
// members, each after a comma.
func (e *taskEnv) rpc(method, id, caps, extra string) (int, map[string]json.RawMessage) {
	e.t.Helper()
	return e.post(modernHdr(method, id), taskBody(method, id, caps, extra))
}

func view(t *testing.T, msg map[string]json.RawMessage) taskView {
	t.Helper()
	require.Contains(t, msg, "result", show(msg))
	var v taskView
	require.NoError(t, json.Unmarshal(msg["result"], &v), string(msg["result"]))
	return v
}

// create calls tool as a task and returns its CreateTaskResult.
func (e *taskEnv) create(tool, caps, args string) taskView {
	e.t.Helper()
	status, msg := e.call(tool, caps, args)
	require.Equal(e.t, 200, status, show(msg))
	v := view(e.t, msg)
	require.Equal(e.t, "task", v.ResultType, show(msg))
	return v
}

func (e *taskEnv) get(id string) taskView {
	e.t.Helper()
	status, msg := e.rpc("tasks/get", id, taskCaps, "")
	require.Equal(e.t, 200, status, show(msg))
	v := view(e.t, msg)
	require.Equal(e.t, "complete", v.ResultType)
	require.Equal(e.t, id, v.TaskID)
	return v
}

// await polls task id until done says so, for up to 5 s.
func (e *taskEnv) await(id string, done func(taskView) bool) taskView {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v := e.get(id)
		if done(v) {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("task %s: still %s", id, v.Status)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (e *taskEnv) status(id, want string) taskView {
	e.t.Helper()
	return e.await(id, func(v taskView) bool { return v.Status == want })
}

// update answers task id's input requests; it returns the response.
func (e *taskEnv) update(id, answers string) map[string]json.RawMessage {
	e.t.Helper()
	_, msg := e.rpc("tasks/update", id, askCaps, `,"inputResponses":{`+answers+`}`)
	return msg
}

func acked(t *testing.T, msg map[string]json.RawMessage) {
	t.Helper()
	require.Contains(t, msg, "result", show(msg))
	require.JSONEq(t, `{"resultType":"complete"}`, string(msg["result"]))
}

func received[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for " + what)
	}
	var zero T
	return zero
}

// TestTaskLifecycle: a request that declares the extension gets a
// CreateTaskResult (the Task's members only) at once; tasks/get finds the
// task right after, working, then completed with the work's result.
func TestTaskLifecycle(t *testing.T) {
	release := make(chan struct{})
	e := newTaskEnv(t, nil, taskTool("slow", mcp.TaskOptional, waiting(release, "done")),
		taskTool("fast", mcp.TaskRequired, waiting(closed(), "fast")))
	status, msg := e.call("slow", taskCaps, "")
	require.Equal(t, 200, status)
	var members map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(msg["result"], &members))
	require.Equal(t, []string{"createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "taskId", "ttlMs"}, keys(members))
	v := view(t, msg)
	require.Equal(t, "working", v.Status)
	require.Regexp(t, `^[0-9a-f]{32}$`, v.TaskID)
	require.Equal(t, int64(3600000), *v.TTLMs)
	require.Equal(t, int64(1000), *v.PollIntervalMs)
	require.WithinDuration(t, time.Now(), v.CreatedAt, time.Minute)
	require.Equal(t, v.CreatedAt, v.LastUpdatedAt)
	require.Equal(t, 1, e.s.Tasks())

	g := e.get(v.TaskID)
	require.Equal(t, "working", g.Status)
	require.Equal(t, v.CreatedAt, g.CreatedAt)
	require.Nil(t, g.Result)
	require.Nil(t, g.Error)
	close(release)
	g = e.status(v.TaskID, "completed")
	require.Contains(t, string(g.Result), `"content":[{"type":"text","text":"done"}]`)
	require.NotContains(t, string(g.Result), `isError`)
	require.False(t, g.LastUpdatedAt.Before(g.CreatedAt))
	require.Nil(t, g.Error)

	// A task is found the moment its CreateTaskResult is out, whether its
	// work has ended or not.
	for range 20 {
		v = e.create("fast", taskCaps, "")
		require.Contains(t, []string{"working", "completed"}, e.get(v.TaskID).Status)
	}
	require.Contains(t, string(e.status(v.TaskID, "completed").Result), `"text":"fast"`)
	require.Equal(t, 21, e.s.Tasks())
}

func closed() chan struct{} { c := make(chan struct{}); close(c); return c }

// TestTaskInline: without the extension in the request's capabilities,
// on a 2025-11-25 session, or for a tool without Tasks, RunTask runs the
// work inline and the call answers its result.
func TestTaskInline(t *testing.T) {
	now := waiting(closed(), "inline")
	e := newTaskEnv(t, nil, taskTool("opt", mcp.TaskOptional, now), taskTool("never", mcp.TaskForbidden, now))
	f := func(tool, caps string) {
		t.Helper()
		status, msg := e.call(tool, caps, "")
		require.Equal(t, 200, status, show(msg))
		require.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"inline"}]}`, string(msg["result"]))
	}
	f("opt", `{}`)
	f("opt", `{"extensions":{"io.modelcontextprotocol/other":{}}}`)
	f("never", taskCaps)
	require.Equal(t, 0, e.s.Tasks())

	sid := e.initialize(mcp.Version20251125)
	_, body := e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"opt","arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/clientCapabilities":`+taskCaps+`}}}`)
	require.Equal(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"inline"}]}}`, body)
	_, body = e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+nobody+`"}}`)
	require.Equal(t, -32601, errorCode(t, body), body)
	require.Equal(t, 0, e.s.Tasks())
}

// TestTaskRequired: a TaskRequired tool refuses, before its handler, a
// request that did not declare the extension (HTTP 400) and every call
// of a 2025-11-25 session.
func TestTaskRequired(t *testing.T) {
	ran := make(chan struct{}, 10)
	e := newTaskEnv(t, nil, taskTool("req", mcp.TaskRequired, func(context.Context) (*mcp.Result, error) {
		ran <- struct{}{}
		return mcp.TextResult("ok"), nil
	}))
	for _, caps := range []string{`{}`, `{"extensions":{}}`, `{"extensions":{"io.modelcontextprotocol/tasks":true}}`, `{"tasks":{}}`} {
		status, msg := e.call("req", caps, "")
		require.Equal(t, 400, status, caps)
		require.JSONEq(t, `{"code":-32021,"message":"Missing required client capability: extensions.io.modelcontextprotocol/tasks","data":`+noTasks+`}`,
			string(msg["error"]), caps)
	}
	sid := e.initialize(mcp.Version20251125)
	_, body := e.do("POST", hdr{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"req","arguments":{}}}`)
	require.Equal(t, -32021, errorCode(t, body), body)
	require.Contains(t, body, `"data":`+noTasks)
	require.Empty(t, ran, "the handler ran")

	v := e.create("req", taskCaps, "")
	require.Contains(t, string(e.status(v.TaskID, "completed").Result), `"text":"ok"`)
	require.Len(t, ran, 1)
}

// TestTaskGate: tasks/* need the extension in the request's capabilities
// (-32021, HTTP 400) and a known taskId (-32602); Mcp-Method and Mcp-Name
// must mirror the method and the taskId (-32020, HTTP 400).
func TestTaskGate(t *testing.T) {
	e := newTaskEnv(t, nil, taskTool("wait", mcp.TaskOptional, waiting(nil, "")))
	id := e.create("wait", taskCaps, "").TaskID
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		for _, caps := range []string{`{}`, `{"extensions":{"io.modelcontextprotocol/other":{}}}`} {
			status, msg := e.rpc(m, id, caps, `,"inputResponses":{}`)
			code, data := rpcError(t, msg)
			require.Equal(t, 400, status, m)
			require.Equal(t, -32021, code, m)
			require.JSONEq(t, noTasks, data, m)
		}
		status, msg := e.rpc(m, nobody, taskCaps, `,"inputResponses":{}`)
		code, data := rpcError(t, msg)
		require.Equal(t, 200, status, m)
		require.Equal(t, -32602, code, m)
		require.Contains(t, data, "Task not found", m)
	}
	mismatch := func(h hdr, body string) {
		t.Helper()
		status, msg := e.post(h, body)
		code, _ := rpcError(t, msg)
		require.Equal(t, 400, status, show(msg))
		require.Equal(t, -32020, code, show(msg))
	}
	cancel := taskBody("tasks/cancel", id, taskCaps, "")
	mismatch(modernHdr("tasks/cancel", nobody), cancel)
	mismatch(modernHdr("tasks/cancel", ""), cancel)
	mismatch(modernHdr("tasks/get", id), cancel)
	mismatch(modernHdr("tasks/get", id), taskBody("tasks/get", nobody, taskCaps, ""))
	require.Equal(t, "working", e.get(id).Status, "refused requests changed the task")
}

// TestTaskFailed: work that returns a *encode.Error or panics fails
// the task with a JSON-RPC error; a plain error or an IsError result
// completes it with a failed tool result.
func TestTaskFailed(t *testing.T) {
	e := newTaskEnv(t, nil,
		taskTool("rpcerr", mcp.TaskOptional, func(context.Context) (*mcp.Result, error) {
			return nil, dispatch.NewError(-32050, "boom", []byte(`{"why": "x"}`))
		}),
		taskTool("panics", mcp.TaskOptional, func(context.Context) (*mcp.Result, error) { panic("kaboom") }),
		taskTool("plain", mcp.TaskOptional, func(context.Context) (*mcp.Result, error) { return nil, errors.New("plain failure") }),
		taskTool("iserror", mcp.TaskOptional, func(context.Context) (*mcp.Result, error) { return mcp.ErrorResult("tool failure"), nil }))
	run := func(tool, status string) taskView {
		t.Helper()
		return e.status(e.create(tool, taskCaps, "").TaskID, status)
	}
	v := run("rpcerr", "failed")
	require.JSONEq(t, `{"code":-32050,"message":"boom","data":{"why":"x"}}`, string(v.Error))
	require.Nil(t, v.Result)
	require.NotEmpty(t, v.StatusMessage)

	v = run("panics", "failed")
	var e2 struct {
		Code    int
		Message string
		Data    string
	}
	require.NoError(t, json.Unmarshal(v.Error, &e2), string(v.Error))
	require.Equal(t, -32603, e2.Code)
	require.Equal(t, "Internal error", e2.Message)
	require.Contains(t, e2.Data, "kaboom")

	for tool, text := range map[string]string{"plain": "plain failure", "iserror": "tool failure"} {
		v = run(tool, "completed")
		require.Nil(t, v.Error, tool)
		require.Contains(t, string(v.Result), `"isError":true`, tool)
		require.Contains(t, string(v.Result), `"text":"`+text+`"`, tool)
	}
}

// TestTaskCancel: tasks/cancel cancels a running task at once and ends its
// work's context; the work's late result does not revive it; cancelling an
// ended task is acknowledged and changes nothing.
func TestTaskCancel(t *testing.T) {
	ended := make(chan error, 1)
	e := newTaskEnv(t, nil, taskTool("wait", mcp.TaskOptional, func(ctx context.Context) (*mcp.Result, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return mcp.TextResult("too late"), nil
	}), taskTool("fast", mcp.TaskOptional, waiting(closed(), "fast")))
	id := e.create("wait", taskCaps, "").TaskID
	require.Equal(t, "working", e.get(id).Status)
	require.Empty(t, ended)
	status, msg := e.rpc("tasks/cancel", id, taskCaps, "")
	require.Equal(t, 200, status)
	acked(t, msg)
	v := e.get(id)
	require.Equal(t, "cancelled", v.Status, "at once")
	require.NotEmpty(t, v.StatusMessage)
	require.ErrorIs(t, received(t, ended, "the work's context to end"), context.Canceled)
	_, msg = e.rpc("tasks/cancel", id, taskCaps, "")
	acked(t, msg)
	v = e.get(id)
	require.Equal(t, "cancelled", v.Status)
	require.Nil(t, v.Result)

	id = e.create("fast", taskCaps, "").TaskID
	e.status(id, "completed")
	_, msg = e.rpc("tasks/cancel", id, taskCaps, "")
	acked(t, msg)
	v = e.get(id)
	require.Equal(t, "completed", v.Status)
	require.Contains(t, string(v.Result), `"text":"fast"`)
}

// TestTaskInput: Ask inside a task's work makes it input_required with
// the requests by key; tasks/update answers some or all of them (others'
// keys ignored, an answer that is not an object or does not fit refused
// and still pending); a key asked again gets a new one; cancelling the
// task ends the Ask.
func TestTaskInput(t *testing.T) {
	askErr := make(chan error, 1)
	one := taskTool("one", mcp.TaskOptional, func(ctx context.Context) (*mcp.Result, error) {
		var r mcp.ElicitResult
		if err := mcp.Ask(ctx, mcp.Elicit("name", "Your name?", askSchema, &r)); err != nil {
			askErr <- err
			return nil, err
		}
		return mcp.TextResult(r.Action + " " + string(r.Content)), nil
	})
	two := taskTool("two", mcp.TaskOptional, func(ctx context.Context) (*mcp.Result, error) {
		var colour, again mcp.ElicitResult
		var roots mcp.ListRootsResult
		if err := mcp.Ask(ctx, mcp.Elicit("colour", "Colour?", askSchema, &colour), mcp.ListRoots("roots", &roots)); err != nil {
			return nil, err
		}
		if err := mcp.Ask(ctx, mcp.Elicit("colour", "Colour again?", askSchema, &again)); err != nil {
			return nil, err
		}
		return mcp.TextResult(string(colour.Content) + " " + roots.Roots[0].URI + " " + string(again.Content)), nil
	})
	e := newTaskEnv(t, nil, one, two)

	id := e.create("one", askCaps, "").TaskID
	v := e.status(id, "input_required")
	require.Equal(t, []string{"name"}, keys(v.InputRequests))
	require.JSONEq(t, `{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":`+string(askSchema)+`}}`, string(v.InputRequests["name"]))
	require.Nil(t, v.Result)
	acked(t, e.update(id, nameAnswer))
	require.Contains(t, string(e.status(id, "completed").Result), `"text":"accept {\"v\":\"Ann\"}"`)

	id = e.create("two", askCaps, "").TaskID
	pending := func(want ...string) {
		t.Helper()
		v := e.get(id)
		require.Equal(t, "input_required", v.Status)
		require.Equal(t, want, keys(v.InputRequests))
	}
	require.Equal(t, []string{"colour", "roots"}, keys(e.status(id, "input_required").InputRequests))
	acked(t, e.update(id, colourAnswer+`,"stranger":{"action":"accept"}`))
	pending("roots")
	acked(t, e.update(id, `"stranger":{}`))
	pending("roots")
	for answer, why := range map[string]string{`"roots":5`: `inputResponses[\"roots\"] is not an object`, `"roots":{"roots":"x"}`: `does not fit the roots/list result`} {
		code, data := rpcError(t, e.update(id, answer))
		require.Equal(t, -32602, code, answer)
		require.Contains(t, data, why)
		pending("roots")
	}
	acked(t, e.update(id, rootsAnswer))
	v = e.await(id, func(v taskView) bool { return v.Status == "input_required" && v.InputRequests["colour-2"] != nil })
	require.Equal(t, []string{"colour-2"}, keys(v.InputRequests), "a task never reuses a key")
	require.Contains(t, string(v.InputRequests["colour-2"]), `"message":"Colour again?"`)
	acked(t, e.update(id, colourAnswer))
	pending("colour-2")
	acked(t, e.update(id, `"colour-2":{"action":"accept","content":{"v":"blue"}}`))
	require.Contains(t, string(e.status(id, "completed").Result), `"text":"{\"v\":\"red\"} file:///r {\"v\":\"blue\"}"`)

	// Cancelled while it waits: Ask returns, no request is left.
	id = e.create("one", askCaps, "").TaskID
	e.status(id, "input_required")
	_, msg := e.rpc("tasks/cancel", id, askCaps, "")
	acked(t, msg)
	require.ErrorIs(t, received(t, askErr, "Ask to return"), context.Canceled)
	v = e.get(id)
	require.Equal(t, "cancelled", v.Status)
	require.Nil(t, v.InputRequests)
	acked(t, e.update(id, nameAnswer))
	require.Equal(t, "cancelled", e.get(id).Status)

	// A request for a capability the call did not declare fails the task.
	id = e.create("one", taskCaps, "").TaskID
	require.Error(t, received(t, askErr, "Ask to refuse"))
	require.Contains(t, string(e.status(id, "failed").Error), `"code":-32021`)
}

// TestTaskOptions: SetTaskOptions sets ttlMs and pollIntervalMs, makes
// tasks expire (cancelled if running, then "Task has expired") and bounds
// the tasks kept; it refuses bad values and a serving server.
func TestTaskOptions(t *testing.T) {
	t.Run("values", func(t *testing.T) {
		e := newTaskEnv(t, &mcp.TaskOptions{TTL: 90 * time.Second, PollInterval: 250 * time.Millisecond},
			taskTool("wait", mcp.TaskOptional, waiting(nil, "")))
		v := e.create("wait", taskCaps, "")
		require.Equal(t, int64(90000), *v.TTLMs)
		require.Equal(t, int64(250), *v.PollIntervalMs)
		g := e.get(v.TaskID)
		require.Equal(t, int64(90000), *g.TTLMs)
		require.Equal(t, int64(250), *g.PollIntervalMs)
		require.ErrorIs(t, e.s.SetTaskOptions(mcp.TaskOptions{TTL: time.Minute}), mcp.ErrFrozen)
	})
	t.Run("errors", func(t *testing.T) {
		s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
		t.Cleanup(s.Close)
		for _, o := range []mcp.TaskOptions{{TTL: 999 * time.Microsecond}, {TTL: -time.Second}, {PollInterval: time.Microsecond}, {MaxTasks: -1}} {
			require.ErrorIs(t, s.SetTaskOptions(o), mcp.ErrTaskTTL, "%+v", o)
		}
		require.NoError(t, s.SetTaskOptions(mcp.TaskOptions{TTL: time.Millisecond, PollInterval: time.Millisecond, MaxTasks: 1}))
	})
	t.Run("expiry", func(t *testing.T) {
		ended := make(chan error, 1)
		e := newTaskEnv(t, &mcp.TaskOptions{TTL: 50 * time.Millisecond}, taskTool("wait", mcp.TaskOptional, func(ctx context.Context) (*mcp.Result, error) {
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}))
		id := e.create("wait", taskCaps, "").TaskID
		require.ErrorIs(t, received(t, ended, "the expired task's work to end"), context.Canceled)
		var data string
		deadline := time.Now().Add(5 * time.Second)
		for data == "" {
			_, msg := e.rpc("tasks/get", id, taskCaps, "")
			if _, failed := msg["error"]; failed {
				var code int
				code, data = rpcError(t, msg)
				require.Equal(t, -32602, code)
				break
			}
			require.Less(t, time.Now(), deadline, "the task did not expire")
			time.Sleep(5 * time.Millisecond)
		}
		require.Equal(t, 0, e.s.Tasks())
		require.Contains(t, data, "Task has expired", "a client polling past the TTL is told the task expired")
	})
	t.Run("bound", func(t *testing.T) {
		release := make(chan struct{})
		hold := mcp.NewTool("hold", "", func(ctx context.Context, in struct{ Block bool }) (*mcp.Result, error) {
			return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
				if !in.Block {
					return mcp.TextResult("quick"), nil
				}
				return waiting(release, "held")(ctx)
			})
		})
		hold.Tasks = mcp.TaskOptional
		e := newTaskEnv(t, &mcp.TaskOptions{MaxTasks: 2}, hold, taskTool("must", mcp.TaskRequired, waiting(closed(), "must")))
		a := e.create("hold", taskCaps, `{"Block":true}`).TaskID
		e.create("hold", taskCaps, `{"Block":true}`)
		require.Equal(t, 2, e.s.Tasks())
		_, msg := e.call("hold", taskCaps, `{"Block":false}`)
		require.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"quick"}]}`, string(msg["result"]), "inline at the bound")
		_, msg = e.call("must", taskCaps, "")
		code, data := rpcError(t, msg)
		require.Equal(t, -32603, code)
		require.Contains(t, data, "too many tasks")
		require.Equal(t, 2, e.s.Tasks())

		_, msg = e.rpc("tasks/cancel", a, taskCaps, "")
		acked(t, msg)
		id := e.create("must", taskCaps, "").TaskID // the ended task makes room
		require.Contains(t, string(e.status(id, "completed").Result), `"text":"must"`)
		require.Equal(t, 2, e.s.Tasks())
		_, msg = e.rpc("tasks/get", a, taskCaps, "")
		code, _ = rpcError(t, msg)
		require.Equal(t, -32602, code, "the cancelled task was forgotten")
		close(release)
	})
}

// listenTasks is a subscriptions/listen request for task ids.
func listenTasks(id, caps, ids string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":{"taskIds":` + ids +
		`},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
}

// TestTaskNotifications: a listen stream that asks for task ids (the
// extension declared) acknowledges the known ones and gets
// notifications/tasks with the whole task on each change, the terminal
// one with its result; without the extension it is refused.
func TestTaskNotifications(t *testing.T) {
	start, finish := make(chan struct{}), make(chan struct{})
	e := newTaskEnv(t, nil, taskTool("later", mcp.TaskOptional, func(ctx context.Context) (*mcp.Result, error) {
		if _, err := waiting(start, "")(ctx); err != nil {
			return nil, err
		}
		var r mcp.ElicitResult
		if err := mcp.Ask(ctx, mcp.Elicit("name", "Your name?", askSchema, &r)); err != nil {
			return nil, err
		}
		return waiting(finish, "hi "+string(r.Content))(ctx)
	}))
	id := e.create("later", askCaps, "").TaskID
	status, msg := e.post(modernHdr("subscriptions/listen", ""), listenTasks("1", `{}`, `["`+id+`"]`))
	code, data := rpcError(t, msg)
	require.Equal(t, 400, status)
	require.Equal(t, -32021, code)
	require.JSONEq(t, noTasks, data)

	res := e.open("POST", modernHdr("subscriptions/listen", ""), listenTasks(`"L"`, askCaps, `["`+id+`","`+nobody+`"]`))
	defer res.Body.Close()
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	br := bufio.NewReader(res.Body)
	require.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},`+
		`"notifications":{"taskIds":["`+id+`"]}}}`, events(t, br, 1)[0][1])
	next := func() taskView {
		t.Helper()
		ev := events(t, br, 1)
		require.Len(t, ev, 1, "the stream ended")
		var n struct {
			Method string
			Params json.RawMessage
		}
		require.NoError(t, json.Unmarshal([]byte(ev[0][1]), &n), ev[0][1])
		require.Equal(t, "notifications/tasks", n.Method)
		require.Contains(t, string(n.Params), `"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}`)
		var v taskView
		require.NoError(t, json.Unmarshal(n.Params, &v))
		require.Equal(t, id, v.TaskID)
		require.NotNil(t, v.TTLMs)
		return v
	}
	close(start)
	v := next()
	require.Equal(t, "input_required", v.Status)
	require.Equal(t, []string{"name"}, keys(v.InputRequests))
	acked(t, e.update(id, nameAnswer))
	v = next()
	require.Equal(t, "working", v.Status, "tasks/update took the answer")
	require.Nil(t, v.InputRequests)
	close(finish)
	v = next()
	require.Equal(t, "completed", v.Status)
	require.Contains(t, string(v.Result), `"text":"hi {\"v\":\"Ann\"}"`)
}

// TestTaskDiscover: server/discover advertises the extension when a tool
// may run as a task, and only then.
func TestTaskDiscover(t *testing.T) {
	caps := func(tools ...*mcp.Tool) string {
		t.Helper()
		e := newTaskEnv(t, nil, tools...)
		_, msg := e.post(modernHdr("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
		var r struct{ Capabilities json.RawMessage }
		require.NoError(t, json.Unmarshal(msg["result"], &r), show(msg))
		return string(r.Capabilities)
	}
	plain := taskTool("plain", mcp.TaskForbidden, waiting(closed(), ""))
	require.NotContains(t, caps(plain), `"extensions"`)
	require.Contains(t, caps(plain, taskTool("opt", mcp.TaskOptional, waiting(closed(), ""))), `"extensions":{"io.modelcontextprotocol/tasks":{}}`)
	require.Contains(t, caps(taskTool("req", mcp.TaskRequired, waiting(closed(), ""))), `"extensions":{"io.modelcontextprotocol/tasks":{}}`)
}

// TestTaskStdio: over stdio a call makes a task the client polls to
// completion; tasks/get without the extension is refused.
func TestTaskStdio(t *testing.T) {
	release := make(chan struct{})
	s := mcp.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	require.NoError(t, s.AddTool(taskTool("slow", mcp.TaskOptional, waiting(release, "stdio done"))))
	p := serveStdio(t, s)
	type reply struct {
		ID     int
		Result taskView
		Error  *struct{ Code int }
	}
	ask := func(id int, msg string) reply {
		t.Helper()
		p.send(msg)
		line := p.next()
		var r reply
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		require.Equal(t, id, r.ID, line)
		return r
	}
	r := ask(1, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},`+taskMeta+`}}`)
	require.Equal(t, "task", r.Result.ResultType)
	require.Equal(t, "working", r.Result.Status)
	get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + r.Result.TaskID + `",` + taskMeta + `}}`
	require.Equal(t, "working", ask(2, get).Result.Status)
	r = ask(3, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+r.Result.TaskID+`",`+modernMeta+`}}`)
	require.NotNil(t, r.Error)
	require.Equal(t, -32021, r.Error.Code)
	close(release)
	for i := 0; ; i++ {
		require.Less(t, i, 1000, "the task did not complete")
		if r = ask(2, get); r.Result.Status == "completed" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.Contains(t, string(r.Result.Result), `"text":"stdio done"`)
}
