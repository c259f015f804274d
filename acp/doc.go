// Package acp serves and calls the Agent Client Protocol (ACP, protocol
// version 1) on a jetrpc engine: JSON-RPC 2.0 between an editor (the
// client) and a coding agent, one message per line (NDJSON) over the
// agent's stdin and stdout.
//
// # The agent side
//
// An [Agent] implements initialize, session/new, session/prompt and
// session/cancel; the optional interfaces [Authenticator], [SessionLoader]
// and [ModeSetter] add authenticate, session/load and session/set_mode. A
// [Server] binds an Agent to a [dispatch.Engine] as typed handlers
// ([dispatch.Typed]), so any jetrpc transport serves it; ACP's own is
// netserver's stdio serving:
//
//	e := dispatch.New(&dispatch.Options{Codes: acp.EngineCodes()}) // ACP's codes for the engine's conditions
//	s := acp.NewServer(myAgent, nil)
//	_ = s.Register(e)
//	err := s.StreamServer(e, nil).ServeStdio(os.Stdin, os.Stdout) // NDJSON, ACP's limits
//
// During a prompt turn the agent reaches the editor through [ClientOf]:
// [ClientConn.Update] sends session/update notifications, and
// RequestPermission, ReadTextFile, WriteTextFile and the terminal methods
// call the editor (each checks the capability the editor declared in
// initialize first: [ErrUnsupported]).
//
// What the Server does for every agent:
//
//   - session/update notifications go out in the order the agent sends
//     them, while requests (a second session's prompt, set_mode during a
//     turn) run concurrently on the engine's workers. An editor that reads
//     slowly slows the agent's Update calls down (the connection's output
//     is bounded by netserver's MaxPending): a burst is backpressure, never
//     a closed connection or a dropped update.
//   - session/cancel cancels the context of the session's turns in
//     progress, then calls Agent.Cancel; a turn whose context was cancelled
//     answers stopReason "cancelled" whatever its Prompt returned (the spec
//     asks agents to turn the errors of aborted work into that). ACP's
//     $/cancel_request cancels the context of one request by id: a prompt
//     then ends "cancelled", another request answers -32800.
//   - A line that is not JSON is answered -32700 with id null, and the
//     connection goes on (the engine's rule for every transport).
//   - Lines up to the server's MaxMessage are accepted. ACP agents receive
//     whole files in prompts, so this package's default is
//     [DefaultMaxMessage], 32 MiB (what the TypeScript SDK accepts), not
//     the engine's 4 MiB; jetrpc serve --acp uses it unless --max-message
//     says otherwise. A longer line is answered -32600 and skipped.
//
// # The editor side
//
// An editor implements [Client] (session/update and
// session/request_permission; [FileSystem] and [Terminals] add fs/* and
// terminal/*) and talks to an agent process with [StartAgent], or to any
// connection with [NewAgentConn]. [AgentConn] calls the agent; the agent's
// messages are handled one at a time in the order they came, and a call
// such as Prompt returns only after every session/update the agent sent
// before its answer has been handled.
package acp
