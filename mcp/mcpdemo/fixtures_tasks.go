package mcpdemo

// NOTE: the fixtures of the conformance suite's tasks scenarios (the tasks
// extension, SEP-2663): tools whose handlers hand their work to
// mcp.RunTask. A request that declared the extension gets a task to poll;
// any other gets the result inline (or, for a TaskRequired tool, the
// MissingRequiredClientCapability error).

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp"
)

// GreetIn is greet's input.
type GreetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// ComputeIn is slow_compute's input.
type ComputeIn struct {
	Seconds float64 `json:"seconds" jsonschema:"how long the work takes, in seconds"`
	Label   string  `json:"label,omitempty" jsonschema:"a label the result repeats"`
}

// DeleteIn is confirm_delete's input.
type DeleteIn struct {
	Filename string `json:"filename" jsonschema:"the file to delete"`
}

// registerTasks adds them to s.
func registerTasks(s *mcp.Server) error {
	greet := mcp.NewTool("greet", "Greets someone (never a task).", func(_ context.Context, in GreetIn) (*mcp.Result, error) {
		return mcp.TextResult("Hello, " + in.Name + "!"), nil
	})
	tools := []*mcp.Tool{
		greet,
		task(mcp.TaskOptional, mcp.NewTool("slow_compute", "Works for the given seconds, as a task when it can.", slowCompute)),
		task(mcp.TaskRequired, mcp.NewTool("failing_job", "Fails (isError) after a second; only as a task.", failingJob)),
		task(mcp.TaskOptional, mcp.NewTool("protocol_error_job", "Fails with a JSON-RPC error, as a task when it can.", protocolErrorJob)),
		task(mcp.TaskOptional, mcp.NewTool("confirm_delete", "Asks to confirm, then deletes (pretends to).", confirmDelete)),
		task(mcp.TaskOptional, mcp.NewTool("multi_input", "Asks two questions at once, then answers with both.", multiInput)),
		task(mcp.TaskRequired, mcp.NewTool("test_tool_with_task", "Asks the user's name first, then greets them from a task.", nameThenTask)),
	}
	var err error
	for _, t := range tools {
		err = errors.Join(err, s.AddTool(t))
	}
	return err
}

func task(support mcp.TaskSupport, t *mcp.Tool) *mcp.Tool {
	t.Tasks = support
	return t
}

func slowCompute(ctx context.Context, in ComputeIn) (*mcp.Result, error) {
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		if err := pause(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
			return nil, err
		}
		return mcp.TextResult("Computed " + in.Label + " in " + strconv.FormatFloat(in.Seconds, 'g', -1, 64) + " s"), nil
	})
}

func failingJob(ctx context.Context, _ none) (*mcp.Result, error) {
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		if err := pause(ctx, time.Second); err != nil {
			return nil, err
		}
		return mcp.ErrorResult("the job failed, as it always does"), nil
	})
}

func protocolErrorJob(ctx context.Context, _ none) (*mcp.Result, error) {
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
		return nil, dispatch.NewError(-32603, "Internal error", []byte(`"the job's backend is unreachable"`))
	})
}

func confirmDelete(ctx context.Context, in DeleteIn) (*mcp.Result, error) {
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		var ok mcp.ElicitResult
		if err := mcp.Ask(ctx, mcp.Elicit("confirm", "Delete "+in.Filename+"?", confirmSchema, &ok)); err != nil {
			return nil, err
		}
		if ok.Action != "accept" {
			return mcp.TextResult("Kept " + in.Filename), nil
		}
		return mcp.TextResult("Deleted " + in.Filename), nil
	})
}

var confirmSchema = []byte(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)

func multiInput(ctx context.Context, _ none) (*mcp.Result, error) {
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		var a, b mcp.ElicitResult
		if err := mcp.Ask(ctx, mcp.Elicit("first", "Your name?", stringSchema("name"), &a),
			mcp.Elicit("second", "Your colleague's name?", stringSchema("name"), &b)); err != nil {
			return nil, err
		}
		return mcp.TextResult("Got " + field(&a, "name") + " and " + field(&b, "name")), nil
	})
}

// nameThenTask asks in the request itself (an InputRequiredResult), then
// runs the rest as a task.
func nameThenTask(ctx context.Context, _ none) (*mcp.Result, error) {
	var name mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Elicit("user_name", "What is your name?", stringSchema("name"), &name)); err != nil {
		return nil, err
	}
	who := field(&name, "name")
	return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
		if err := pause(ctx, 200*time.Millisecond); err != nil {
			return nil, err
		}
		return mcp.TextResult("Hello, " + who + "!"), nil
	})
}
