// Package mcphttp serves an mcp.Server over MCP's Streamable HTTP
// transport: one endpoint for every protocol revision (the
// initialize-based ones with sessions, 2026-07-28 without), resumable
// event streams, sessions that a replica sharing the event store can take
// over (SessionIDs), and the 2026-07-28 header checks.
//
//	srv := mcp.New(mcp.Implementation{Name: "demo", Version: "1.0"}, nil)
//	// srv.AddTool(...)
//	h := mcphttp.New(srv, nil)
//	defer h.Shutdown(context.Background())
//	// mount h.ServeFastHTTP at /mcp (netserver.Options.Routes does)
//
// Package mcp has the server (tools, resources, prompts, tasks) and the
// stream transports (stdio); see Handler for the endpoint's rules.
package mcphttp
