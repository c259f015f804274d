// Package gosdkpeer is the benchmark's server on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk v1.8.0): the tools echo and
// countdown of jetrpc serve --mcp's demo, over Streamable HTTP.
package gosdkpeer

import (
	"context"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Revisions the benchmark pins.
const (
	V20251125 = "2025-11-25"
	V20260728 = "2026-07-28"
)

// EchoIn is echo's input.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// CountdownIn is countdown's input.
type CountdownIn struct {
	N int `json:"n" jsonschema:"how many progress notifications to send"`
}

// NewServer returns a go-sdk server with echo and countdown that speaks
// only version (empty: every version the SDK knows), with the SDK's schema
// cache on.
func NewServer(version string) *mcp.Server {
	opts := &mcp.ServerOptions{SchemaCache: mcp.NewSchemaCache()}
	if version != "" {
		opts.SupportedProtocolVersions = []string{version}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-bench", Version: "1"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the text it is given."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "countdown", Description: "Sends n progress notifications, then returns done."}, countdown)
	return s
}

func countdown(ctx context.Context, req *mcp.CallToolRequest, in CountdownIn) (*mcp.CallToolResult, any, error) {
	if tok := req.Params.GetProgressToken(); tok != nil {
		for i := 1; i <= in.N; i++ {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
				Progress: float64(i), Total: float64(in.N), Message: strconv.Itoa(in.N-i) + " to go"})
			if err != nil {
				return nil, nil, err
			}
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
}

// Handler is the Streamable HTTP endpoint of NewServer(version): with
// sessions, except on 2026-07-28, which has none (Stateless).
func Handler(version string) http.Handler {
	s := NewServer(version)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: version == V20260728})
}
