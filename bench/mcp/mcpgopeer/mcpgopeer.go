// Package mcpgopeer is the benchmark's server on mcp-go
// (github.com/mark3labs/mcp-go v1.2.1): the tools echo and countdown of
// jetrpc serve --mcp's demo, over Streamable HTTP.
package mcpgopeer

import (
	"context"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// V20260728 is the stateless revision.
const V20260728 = "2026-07-28"

// NewServer returns an mcp-go server with echo and countdown.
func NewServer() *server.MCPServer {
	s := server.NewMCPServer("mcp-go-bench", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to return"))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("countdown", mcp.WithDescription("Sends n progress notifications, then returns done."),
		mcp.WithNumber("n", mcp.Required(), mcp.Description("how many progress notifications to send"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := req.GetInt("n", 0)
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				srv := server.ServerFromContext(ctx)
				for i := 1; i <= n; i++ {
					err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
						"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": n,
						"message": strconv.Itoa(n-i) + " to go"})
					if err != nil {
						return nil, err
					}
				}
			}
			return mcp.NewToolResultText("done"), nil
		})
	return s
}

// Handler is the Streamable HTTP endpoint of NewServer, advertising only
// version (empty: every version the SDK knows); 2026-07-28 requests carry
// no session, older ones get one from initialize.
func Handler(version string) http.Handler {
	var opts []server.StreamableHTTPOption
	if version != "" {
		opts = append(opts, server.WithStreamableHTTPProtocolVersions(version))
	}
	return server.NewStreamableHTTPServer(NewServer(), opts...)
}
