package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
)

// Tool is a tool a Server offers. Make one with NewTool or
// NewStructuredTool, set the optional fields, then AddTool.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema and OutputSchema are the tool's JSON Schemas, derived
	// from the Go types by NewTool and NewStructuredTool; set them to
	// describe the types by hand. A property of InputSchema reached from
	// the root through "properties" alone may carry "x-mcp-header": NAME
	// (2026-07-28): clients mirror that argument into the HTTP header
	// Mcp-Param-NAME, and mcphttp.Handler rejects a call whose header is
	// missing or does not match. A struct field tagged `mcpheader:"NAME"`
	// writes it into a derived schema. AddTool checks the marks (a string,
	// integer or boolean property; NAME an HTTP token, unique regardless
	// of case).
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *ToolAnnotations
	// Inline marks a cheap tool that never blocks and sends nothing to the
	// client before its result (no progress): on HTTP it runs on the
	// request's own goroutine and answers with application/json, saving a
	// goroutine hand-off. Messages it sends anyway arrive, in an event
	// stream, after it returned, and it cannot call the client.
	Inline bool
	// Tasks says whether the tool's calls may run as tasks (the tasks
	// extension of 2026-07-28): its handler hands its work to RunTask.
	Tasks TaskSupport

	serve   func(c *call, args, dst []byte) ([]byte, error) // appends the CallToolResult
	err     error                                           // from the constructor
	headers []paramheader.Header                            // the x-mcp-header marks, from AddTool
}

// ToolAnnotations are hints about a tool's behaviour (all optional).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Result is a tool's result (CallToolResult): its content and, for a
// structured tool, its structured content as raw JSON (an object).
// IsError marks a failure the model should see (a bad input, a failed
// operation) rather than a protocol error.
type Result struct {
	Content           []Content
	StructuredContent json.RawMessage
	IsError           bool
}

// TextResult returns a Result of one text content.
func TextResult(text string) *Result { return &Result{Content: []Content{TextContent(text)}} }

// ErrorResult returns a failed Result with text saying why.
func ErrorResult(text string) *Result {
	return &Result{Content: []Content{TextContent(text)}, IsError: true}
}

// NewTool returns the tool name, whose handler fn gets the call's
// arguments bound to In by dispatch.Typed's binder (by name, with
// encoding/json's rules) and returns its result. Its input schema is In's
// (see openrpc.Schemas; In should be a struct). Arguments that do not fit
// In are answered as a failed result (isError) naming the problem; so is
// an error fn returns, except a *encode.Error, which is the call's
// JSON-RPC error.
func NewTool[In any](name, description string, fn func(ctx context.Context, in In) (*Result, error)) *Tool {
	t := &Tool{Name: name, Description: description}
	t.InputSchema, t.err = inputSchema(reflect.TypeFor[In]())
	h := dispatch.Typed(func(ctx context.Context, in In) (struct{}, error) {
		c := ctx.(*call)
		c.ran = true
		r, err := fn(c, in)
		c.result = r
		return struct{}{}, err
	})
	t.serve = func(c *call, args, dst []byte) ([]byte, error) {
		c.ran, c.result = false, nil
		_, err := h.ServeRPC(c, args, c.scratch[:0])
		r := c.result
		c.result = nil
		if err != nil {
			return toolError(dst, c, err)
		}
		if r == nil {
			r = &Result{}
		}
		return r.appendTo(dst, c.modern), nil
	}
	return t
}

// NewStructuredTool returns a tool whose result is structured: fn's Out,
// encoded as dispatch.Typed encodes results, is the structuredContent and,
// serialized, the one text content. Its output schema is Out's (an object
// type: a struct or a map); see NewTool for the rest.
func NewStructuredTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) *Tool {
	t := &Tool{Name: name, Description: description}
	t.InputSchema, t.err = inputSchema(reflect.TypeFor[In]())
	if t.err == nil {
		t.OutputSchema, t.err = objectSchema(reflect.TypeFor[Out]())
	}
	h := dispatch.Typed(func(ctx context.Context, in In) (Out, error) {
		c := ctx.(*call)
		c.ran = true
		return fn(c, in)
	})
	t.serve = func(c *call, args, dst []byte) ([]byte, error) {
		c.ran = false
		out, err := h.ServeRPC(c, args, c.scratch[:0])
		c.scratch = out[:0]
		if err != nil {
			return toolError(dst, c, err)
		}
		dst = resultStart(dst, c.modern)
		dst = append(dst, `"content":[{"type":"text","text":`...)
		dst = encode.AppendStringBytes(dst, out)
		dst = append(append(dst, `}],"structuredContent":`...), out...)
		return append(dst, '}'), nil
	}
	return t
}

// toolError answers a tool's error: arguments that did not bind, or what
// the handler returned.
func toolError(dst []byte, c *call, err error) ([]byte, error) {
	var re *encode.Error
	if c.ran && errors.As(err, &re) {
		return dst, err // the handler's own JSON-RPC error
	}
	text := err.Error()
	if !c.ran {
		text = "invalid arguments: " + text
		if errors.As(err, &re) && len(re.Data) > 0 {
			text += " " + string(re.Data)
		}
	}
	r := Result{Content: []Content{TextContent(text)}, IsError: true}
	return r.appendTo(dst, c.modern), nil
}

// appendTo appends r as a CallToolResult.
func (r *Result) appendTo(dst []byte, modern bool) []byte {
	dst = resultStart(dst, modern)
	dst = append(dst, `"content":[`...)
	for i := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.Content[i].appendTo(dst)
	}
	dst = append(dst, ']')
	if len(r.StructuredContent) > 0 {
		dst = appendOneLine(append(dst, `,"structuredContent":`...), r.StructuredContent)
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}')
}

// appendDesc appends the tool as tools/list describes it.
func (t *Tool) appendDesc(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"name":`...), t.Name)
	dst = appendOpt(dst, "title", t.Title)
	dst = appendOpt(dst, "description", t.Description)
	dst = appendOneLine(append(dst, `,"inputSchema":`...), t.InputSchema)
	if len(t.OutputSchema) > 0 {
		dst = appendOneLine(append(dst, `,"outputSchema":`...), t.OutputSchema)
	}
	if t.Annotations != nil {
		a, _ := json.Marshal(t.Annotations)
		dst = append(append(dst, `,"annotations":`...), a...)
	}
	return append(dst, '}')
}

// appendOpt appends ,"name":"value" unless value is empty.
func appendOpt(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(encode.AppendString(append(dst, ','), name), ':')
	return encode.AppendString(dst, value)
}

// objectSchema is t's JSON Schema as a tool's input or output schema: a
// self-contained object schema, its named structs under $defs.
func objectSchema(t reflect.Type) (json.RawMessage, error) {
	raw, err := schemaOf(t)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &probe) != nil || probe.Type != "object" {
		return nil, fmt.Errorf("mcp: a tool's input and output are JSON objects: %v is not a struct or a map", t)
	}
	return raw, nil
}

// appendOneLine appends raw JSON with its whitespace CRs and LFs (the only
// place valid JSON has them raw) made spaces: MCP's messages are one line,
// on stdio and in an event's data.
func appendOneLine(dst, raw []byte) []byte {
	start := len(dst)
	dst = append(dst, raw...)
	for i := start; i < len(dst); i++ {
		if c := dst[i]; c == '\n' || c == '\r' {
			dst[i] = ' '
		}
	}
	return dst
}
