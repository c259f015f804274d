package mcpdemo

// NOTE: the fixtures of the official MCP conformance suite
// (@modelcontextprotocol/conformance, server scenarios): the tools,
// resources, prompts and completions its scenarios name, with the results
// they expect, written with package mcp's public API. jetrpc serve --mcp
// serves them beside the demo tools; together they are an example of a
// complete MCP server.

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
)

// pngPixel is a 1x1 red PNG.
const pngPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

func png() []byte { b, _ := base64.StdEncoding.DecodeString(pngPixel); return b }

// wav returns a short silent 8 kHz mono 16-bit WAV file.
func wav() []byte {
	const samples, rate = 80, 8000
	b := make([]byte, 44+2*samples)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*samples))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], rate*2)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], 2*samples)
	return b
}

// SamplingIn is test_sampling's input.
type SamplingIn struct {
	Prompt string `json:"prompt" description:"the prompt to send to the client's model"`
}

// ElicitationIn is test_elicitation's input.
type ElicitationIn struct {
	Message string `json:"message" description:"the message to show the user"`
}

type none struct{}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func fixed(r *mcp.Result) func(context.Context, none) (*mcp.Result, error) {
	return func(context.Context, none) (*mcp.Result, error) { return r, nil }
}

// RegisterConformance adds the conformance suite's fixtures to s.
func RegisterConformance(s *mcp.Server) error {
	tools := []*mcp.Tool{
		mcp.NewTool("test_simple_text", "Returns a fixed text.", fixed(mcp.TextResult("This is a simple text response for testing."))),
		mcp.NewTool("test_image_content", "Returns a 1x1 PNG image.", fixed(&mcp.Result{Content: []mcp.Content{mcp.ImageContent(png(), "image/png")}})),
		mcp.NewTool("test_audio_content", "Returns a short WAV file.", fixed(&mcp.Result{Content: []mcp.Content{mcp.AudioContent(wav(), "audio/wav")}})),
		mcp.NewTool("test_embedded_resource", "Returns an embedded text resource.", fixed(&mcp.Result{Content: []mcp.Content{
			mcp.ResourceContent(mcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}})),
		mcp.NewTool("test_multiple_content_types", "Returns text, an image and an embedded resource.", fixed(&mcp.Result{Content: []mcp.Content{
			mcp.TextContent("Multiple content types test:"),
			mcp.ImageContent(png(), "image/png"),
			mcp.ResourceContent(mcp.ResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`})}})),
		mcp.NewTool("test_tool_with_logging", "Sends three info log messages 50 ms apart.", toolWithLogging),
		mcp.NewTool("test_error_handling", "Always fails (isError).", fixed(mcp.ErrorResult("This tool intentionally returns an error for testing"))),
		mcp.NewTool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, 50 ms apart.", toolWithProgress),
		mcp.NewTool("test_sampling", "Asks the client's model (sampling/createMessage) and returns its answer.", toolSampling),
		mcp.NewTool("test_elicitation", "Asks the user for a username and an email (elicitation/create).", toolElicitation),
		mcp.NewTool("test_elicitation_sep1034_defaults", "Elicits a form whose fields have defaults (SEP-1034).", elicit(elicitDefaultsSchema)),
		mcp.NewTool("test_elicitation_sep1330_enums", "Elicits a form with every kind of enum (SEP-1330).", elicit(elicitEnumsSchema)),
		mcp.NewTool("test_reconnection", "Closes its event stream's connection, then answers on the resumed stream (SEP-1699).", toolReconnection),
		schema2020(),
		headerTool(),
	}
	for _, t := range tools {
		if err := s.AddTool(t); err != nil {
			return err
		}
	}
	for _, r := range []*mcp.Resource{
		{URI: "test://static-text", Name: "static-text", Description: "A static text resource.", MIMEType: "text/plain",
			Read: static(mcp.ResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."})},
		{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (a PNG).", MIMEType: "image/png",
			Read: static(mcp.ResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: png()})},
		{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to.", MIMEType: "text/plain",
			Read: static(mcp.ResourceContents{URI: "test://watched-resource", MIMEType: "text/plain", Text: "Watched resource content."})},
	} {
		if err := s.AddResource(r); err != nil {
			return err
		}
	}
	if err := s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data",
		Description: "Data for an id.", MIMEType: "application/json", Read: templateData}); err != nil {
		return err
	}
	for _, p := range prompts() {
		if err := s.AddPrompt(p); err != nil {
			return err
		}
	}
	if err := registerStateless(s); err != nil {
		return err
	}
	if err := registerTasks(s); err != nil {
		return err
	}
	return errors.Join(registerInput(s), s.EnableLogging(), s.SetCompleter(complete))
}

func static(rc mcp.ResourceContents) func(context.Context, string) ([]mcp.ResourceContents, error) {
	return func(context.Context, string) ([]mcp.ResourceContents, error) { return []mcp.ResourceContents{rc}, nil }
}

func templateData(_ context.Context, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	id := vars["id"]
	text, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
	return []mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}, nil
}

func toolWithLogging(ctx context.Context, _ none) (*mcp.Result, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := mcp.Log(ctx, mcp.LevelInfo, "conformance", msg); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Tool with logging executed successfully"), nil
}

func toolWithProgress(ctx context.Context, _ none) (*mcp.Result, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := mcp.Progress(ctx, p, 100, ""); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Tool with progress executed successfully"), nil
}

func toolSampling(ctx context.Context, in SamplingIn) (*mcp.Result, error) {
	req := map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": in.Prompt}}},
		"maxTokens": 100,
	}
	var res struct {
		Content struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := mcp.CallClient(ctx, "sampling/createMessage", req, &res); err != nil {
		return mcp.ErrorResult("sampling failed: " + err.Error()), nil
	}
	return mcp.TextResult("LLM response: " + res.Content.Text), nil
}

func toolElicitation(ctx context.Context, in ElicitationIn) (*mcp.Result, error) {
	schema := json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},` +
		`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)
	res, err := elicitation(ctx, in.Message, schema)
	if err != nil {
		return mcp.ErrorResult("elicitation failed: " + err.Error()), nil
	}
	return mcp.TextResult("User response: " + res), nil
}

// elicitation sends elicitation/create and describes the answer.
func elicitation(ctx context.Context, message string, schema json.RawMessage) (string, error) {
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	req := map[string]any{"message": message, "requestedSchema": schema}
	if err := mcp.CallClient(ctx, "elicitation/create", req, &res); err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		res.Content = json.RawMessage("{}")
	}
	return "action=" + res.Action + ", content=" + string(res.Content), nil
}

const elicitDefaultsSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"User name","default":"John Doe"},` +
	`"age":{"type":"integer","description":"User age","default":30},` +
	`"score":{"type":"number","description":"User score","default":95.5},` +
	`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","description":"Verification status","default":true}}}`

const elicitEnumsSchema = `{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`

func elicit(schema string) func(context.Context, none) (*mcp.Result, error) {
	return func(ctx context.Context, _ none) (*mcp.Result, error) {
		res, err := elicitation(ctx, "Please review and update the form fields", json.RawMessage(schema))
		if err != nil {
			return mcp.ErrorResult("elicitation failed: " + err.Error()), nil
		}
		return mcp.TextResult("Elicitation completed: " + res), nil
	}
}

func toolReconnection(ctx context.Context, _ none) (*mcp.Result, error) {
	mcp.CloseSSEStream(ctx)
	if err := pause(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	return mcp.TextResult("Reconnection test completed"), nil
}

// schema2020 is a tool whose input schema uses JSON Schema 2020-12's
// keywords, passed through as written.
func schema2020() *mcp.Tool {
	t := mcp.NewTool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
		func(_ context.Context, in map[string]any) (*mcp.Result, error) {
			b, _ := json.Marshal(in)
			return mcp.TextResult("Received: " + string(b)), nil
		})
	t.InputSchema = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
		`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
		`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
		`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
		`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
		`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`)
	return t
}

func prompts() []*mcp.Prompt {
	user := func(c mcp.Content) mcp.PromptMessage { return mcp.PromptMessage{Role: "user", Content: c} }
	fixedPrompt := func(msgs ...mcp.PromptMessage) func(context.Context, map[string]string) (*mcp.PromptResult, error) {
		return func(context.Context, map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: msgs}, nil
		}
	}
	return []*mcp.Prompt{
		{Name: "test_simple_prompt", Description: "A prompt without arguments.",
			Get: fixedPrompt(user(mcp.TextContent("This is a simple prompt for testing.")))},
		{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments.",
			Arguments: []mcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true}},
			Get: func(_ context.Context, a map[string]string) (*mcp.PromptResult, error) {
				return &mcp.PromptResult{Messages: []mcp.PromptMessage{user(mcp.TextContent(
					"Prompt with arguments: arg1='" + a["arg1"] + "', arg2='" + a["arg2"] + "'"))}}, nil
			}},
		{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds the resource it is given.",
			Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
			Get: func(_ context.Context, a map[string]string) (*mcp.PromptResult, error) {
				return &mcp.PromptResult{Messages: []mcp.PromptMessage{
					user(mcp.ResourceContent(mcp.ResourceContents{URI: a["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
					user(mcp.TextContent("Please process the embedded resource above."))}}, nil
			}},
		{Name: "test_prompt_with_image", Description: "A prompt with an image.",
			Get: fixedPrompt(user(mcp.ImageContent(png(), "image/png")), user(mcp.TextContent("Please analyze the image above.")))},
	}
}

// completions are the values complete offers, by argument name.
var completions = map[string][]string{
	"arg1":  {"paris", "park", "party"},
	"arg2":  {"world", "wonder", "work"},
	"id":    {"123", "456", "789"},
	"style": {"casual", "formal"},
}

func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.Completion, error) {
	var out []string
	for _, v := range completions[req.Argument.Name] {
		if strings.HasPrefix(v, req.Argument.Value) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out, Total: len(out)}, nil
}
