// Package mcp serves the Model Context Protocol (MCP) on a jetrpc engine:
// tools with typed inputs, resources and prompts, over stdio (NDJSON, with
// package netserver) and over the Streamable HTTP transport (package mcphttp,
// whose Handler nethttp's HTTPServer mounts at a path of its own with
// Options.Routes).
//
// It is not a second SDK: a Server registers the MCP methods (initialize,
// ping, server/discover, tools/list, tools/call, resources/list,
// resources/read, prompts/list, prompts/get and the notifications
// initialized and cancelled) as handlers of a [dispatch.Engine], and a
// tool is a [dispatch.Typed] handler over its input type, whose JSON Schema
// package openrpc's generator writes.
//
// # Protocol revisions
//
// One Server speaks every revision at once: 2024-11-05, 2025-03-26,
// 2025-06-18 and 2025-11-25 through initialize (on HTTP, each initialize
// makes a session), and 2026-07-28 without one: a request whose params
// carry _meta["io.modelcontextprotocol/protocolVersion"] (on HTTP also the
// MCP-Protocol-Version header) is served on its own, statelessly, and its
// results carry "resultType":"complete". Results follow the revision's
// schema exactly, with no member of another: ping answers {} to the
// initialize-based revisions. On 2026-07-28 the methods that revision
// removed (initialize, ping, logging/setLevel, resources/subscribe and
// resources/unsubscribe) are -32601 (404 on HTTP), a log notification is
// sent only at or above the request's _meta logLevel, and
// subscriptions/listen carries the list-changed and resource-updated
// notifications ([Server.ToolsChanged], [Server.PromptsChanged],
// [Server.ResourcesChanged], [Server.ResourceUpdated]) of the types the
// client asked for. A tool parameter tagged mcpheader:"Name" (or marked
// x-mcp-header in a hand-written schema) must be mirrored by the
// request's Mcp-Param-Name header (checked over HTTP, -32020 otherwise).
//
// # Tasks
//
// On 2026-07-28 a tool may run as a task (the io.modelcontextprotocol/tasks
// extension, SEP-2663): its Tool.Tasks is TaskOptional or TaskRequired and
// its handler hands its work to [RunTask]. A request whose _meta
// capabilities declare the extension gets a CreateTaskResult at once, the
// work running on; the client polls tasks/get (the result, or the error,
// inlined once it ends), answers the input requests the work makes with
// [Ask] through tasks/update, and cancels with tasks/cancel. Other
// requests get the work's result inline, or -32021 for a TaskRequired
// tool. subscriptions/listen streams that name task ids get
// notifications/tasks. Tasks live in the Server's memory, bounded by
// [Server.SetTaskOptions].
//
// # Calls
//
// A tool's handler gets a context through which it can report progress
// ([Progress], when the call carried _meta.progressToken), send other
// notifications about the call ([Notify]), ask the client for input
// ([Ask]: elicitation, sampling, roots; on the initialize-based revisions
// requests on the call's stream, on 2026-07-28 an input-required result
// with a signed requestState, the handler running again with the
// answers), require client capabilities ([RequireClientCapabilities]:
// -32021), call the client ([CallClient], where the transport allows it)
// and, over Streamable HTTP, close its event
// stream's connection so that the client resumes it ([CloseSSEStream]).
// The context is cancelled when the client sends notifications/cancelled
// for the call, when its session ends or the server shuts down; on HTTP a
// lost connection does not cancel a call of a session (the client can
// resume its stream), but does cancel a stateless or 2026-07-28 one.
//
// # Streamable HTTP
//
// See package mcphttp's Handler for the endpoint's rules (sessions, event streams,
// resumption with Last-Event-ID, the EventStore that keeps the events, the
// session ids that a load balancer can route on).
package mcp
