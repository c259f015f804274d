package mcpdemo

// NOTE: the fixtures of the conformance suite's input-required-result
// scenarios (SEP-2322): tools and a prompt that ask the client for input
// with mcp.Ask. Each is written once for every revision: on 2025-11-25 its
// questions go to the client as requests on the call's stream, on
// 2026-07-28 as an InputRequiredResult, the handler running again from the
// start when the client retries with the answers.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/jetrpc/jetrpc/mcp"
)

// registerInput adds them to s.
func registerInput(s *mcp.Server) error {
	var err error
	for _, t := range []*mcp.Tool{
		mcp.NewTool("test_input_required_result_elicitation", "Asks the user's name, then greets them.", toolAskName),
		mcp.NewTool("test_input_required_result_sampling", "Asks the client's model for the capital of France.", toolAskCapital),
		mcp.NewTool("test_input_required_result_list_roots", "Lists the client's roots.", toolAskRoots),
		mcp.NewTool("test_input_required_result_request_state", "Asks the user to confirm, keeping its own state between rounds.", toolAskConfirm),
		mcp.NewTool("test_input_required_result_multiple_inputs", "Asks a name, a greeting and the roots at once.", toolAskAll),
		mcp.NewTool("test_input_required_result_multi_round", "Asks a name, then a favourite colour.", toolAskTwice),
		mcp.NewTool("test_input_required_result_tampered_state", "Asks the user to confirm (its requestState is signed).", toolAskConfirm),
		mcp.NewTool("test_input_required_result_capabilities", "Asks only what the client declared it can answer.", toolAskWhatCan),
	} {
		err = errors.Join(err, s.AddTool(t))
	}
	return errors.Join(err, s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt",
		Description: "A prompt that asks the user for its context first.", Get: promptAskContext}))
}

// stringSchema is an elicitation form of one required string field.
func stringSchema(field string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + field + `":{"type":"string"}},"required":["` + field + `"]}`)
}

// field returns a string field of an accepted form ("" otherwise).
func field(r *mcp.ElicitResult, name string) string {
	var m map[string]any
	if r.Action != "accept" || json.Unmarshal(r.Content, &m) != nil {
		return ""
	}
	s, _ := m[name].(string)
	return s
}

func sample(key, prompt string, maxTokens int, result *mcp.CreateMessageResult) mcp.InputRequest {
	return mcp.InputRequest{Key: key, Method: mcp.MethodSample, Result: result, Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
		"maxTokens": maxTokens,
	}}
}

func roots(r *mcp.ListRootsResult) string {
	uris := make([]string, len(r.Roots))
	for i, root := range r.Roots {
		uris[i] = root.URI
	}
	return strings.Join(uris, ", ")
}

func toolAskName(ctx context.Context, _ none) (*mcp.Result, error) {
	var name mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Elicit("user_name", "What is your name?", stringSchema("name"), &name)); err != nil {
		return nil, err
	}
	return mcp.TextResult("Hello, " + field(&name, "name") + "!"), nil
}

func toolAskCapital(ctx context.Context, _ none) (*mcp.Result, error) {
	var answer mcp.CreateMessageResult
	if err := mcp.Ask(ctx, sample("capital_question", "What is the capital of France?", 100, &answer)); err != nil {
		return nil, err
	}
	return mcp.TextResult("LLM response: " + answer.Content.Text), nil
}

func toolAskRoots(ctx context.Context, _ none) (*mcp.Result, error) {
	var r mcp.ListRootsResult
	if err := mcp.Ask(ctx, mcp.ListRoots("client_roots", &r)); err != nil {
		return nil, err
	}
	return mcp.TextResult("Client roots: " + roots(&r)), nil
}

// toolAskConfirm keeps a note of its own across the rounds: the answer
// says state-ok when the note came back intact with the confirmation.
func toolAskConfirm(ctx context.Context, _ none) (*mcp.Result, error) {
	const note = "asked-to-confirm"
	if mcp.RequestState(ctx) == nil {
		mcp.SetRequestState(ctx, []byte(note))
	}
	var ok mcp.ElicitResult
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	if err := mcp.Ask(ctx, mcp.Elicit("confirm", "Please confirm", schema, &ok)); err != nil {
		return nil, err
	}
	text := "confirmation: " + ok.Action + " " + string(ok.Content)
	if string(mcp.RequestState(ctx)) == note {
		text += ", state-ok"
	}
	return mcp.TextResult(text), nil
}

func toolAskAll(ctx context.Context, _ none) (*mcp.Result, error) {
	var name mcp.ElicitResult
	var greeting mcp.CreateMessageResult
	var r mcp.ListRootsResult
	if err := mcp.Ask(ctx, mcp.Elicit("user_name", "What is your name?", stringSchema("name"), &name),
		sample("greeting", "Generate a greeting", 50, &greeting), mcp.ListRoots("client_roots", &r)); err != nil {
		return nil, err
	}
	return mcp.TextResult(greeting.Content.Text + " " + field(&name, "name") + " (roots: " + roots(&r) + ")"), nil
}

func toolAskTwice(ctx context.Context, _ none) (*mcp.Result, error) {
	var name, colour mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Elicit("step1", "Step 1: What is your name?", stringSchema("name"), &name)); err != nil {
		return nil, err
	}
	if err := mcp.Ask(ctx, mcp.Elicit("step2", "Step 2: What is your favorite color?", stringSchema("color"), &colour)); err != nil {
		return nil, err
	}
	return mcp.TextResult(field(&name, "name") + "'s favourite colour is " + field(&colour, "color") + "."), nil
}

// toolAskWhatCan asks the client's model and the user, each only when
// the client can answer.
func toolAskWhatCan(ctx context.Context, _ none) (*mcp.Result, error) {
	var reqs []mcp.InputRequest
	var answer mcp.CreateMessageResult
	var name mcp.ElicitResult
	if mcp.ClientSupports(ctx, mcp.MethodSample) {
		reqs = append(reqs, sample("summary", "Summarize the capabilities you declared.", 50, &answer))
	}
	if mcp.ClientSupports(ctx, mcp.MethodElicit) {
		reqs = append(reqs, mcp.Elicit("user_name", "What is your name?", stringSchema("name"), &name))
	}
	if len(reqs) == 0 {
		return mcp.TextResult("The client can answer neither sampling nor elicitation."), nil
	}
	if err := mcp.Ask(ctx, reqs...); err != nil {
		return nil, err
	}
	return mcp.TextResult("model: " + answer.Content.Text + ", user: " + field(&name, "name")), nil
}

func promptAskContext(ctx context.Context, _ map[string]string) (*mcp.PromptResult, error) {
	var c mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Elicit("user_context", "What context should the prompt use?", stringSchema("context"), &c)); err != nil {
		return nil, err
	}
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user",
		Content: mcp.TextContent("Answer with this context in mind: " + field(&c, "context"))}}}, nil
}
