package mcpdemo

// NOTE: the fixtures of the conformance suite's server-stateless scenario
// (2026-07-28, SEP-2575): a tool that needs a client capability, one that
// would ask the user, one that logs, and the two that tell the
// subscriptions/listen streams that a list changed.

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp"
)

// registerStateless adds them to s, and declares that s tells listeners
// of list changes.
func registerStateless(s *mcp.Server) error {
	changed := func(what string, notify func() int) func(context.Context, none) (*mcp.Result, error) {
		return func(context.Context, none) (*mcp.Result, error) {
			return mcp.TextResult("Told " + strconv.Itoa(notify()) + " listener(s) that the " + what + " changed."), nil
		}
	}
	err := s.EnableListChanged()
	for _, t := range []*mcp.Tool{
		mcp.NewTool("test_missing_capability", "Needs the client's sampling capability.", toolNeedsSampling),
		mcp.NewTool("test_streaming_elicitation", "Asks the user to confirm, where the revision lets it ask.", toolStreamingElicitation),
		mcp.NewTool("test_logging_tool", "Logs one info message, if the request asked for log messages.", toolLogging),
		mcp.NewTool("test_trigger_tool_change", "Tells the subscriptions/listen streams that the tools changed.",
			changed("tools", s.ToolsChanged)),
		mcp.NewTool("test_trigger_prompt_change", "Tells the subscriptions/listen streams that the prompts changed.",
			changed("prompts", s.PromptsChanged)),
	} {
		err = errors.Join(err, s.AddTool(t))
	}
	return err
}

func toolNeedsSampling(ctx context.Context, _ none) (*mcp.Result, error) {
	if err := mcp.RequireClientCapabilities(ctx, "sampling"); err != nil {
		return nil, err // -32021, naming sampling
	}
	return mcp.TextResult("The client can sample."), nil
}

// toolStreamingElicitation asks the user on the call's stream where the
// revision allows it (sessions of the initialize-based revisions); a
// 2026-07-28 request gets no request on its stream, only its result.
func toolStreamingElicitation(ctx context.Context, _ none) (*mcp.Result, error) {
	res, err := elicitation(ctx, "Please confirm", json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}}}`))
	switch {
	case errors.Is(err, dispatch.ErrOneWay):
		return mcp.TextResult("This request's stream carries no requests to the client: nothing was asked."), nil
	case err != nil:
		return mcp.ErrorResult("elicitation failed: " + err.Error()), nil
	}
	return mcp.TextResult("User response: " + res), nil
}

func toolLogging(ctx context.Context, _ none) (*mcp.Result, error) {
	if err := mcp.Log(ctx, mcp.LevelInfo, "conformance", "test_logging_tool ran"); err != nil {
		return nil, err
	}
	return mcp.TextResult("Logged, if the request asked for log messages."), nil
}
