// Package a2a serves the Agent2Agent protocol (A2A) over its JSON-RPC
// binding: versions 1.0 and 0.3 on one HTTP endpoint, with SSE streaming,
// resubscription that replays what a client missed, and push
// notifications to webhooks.
//
// A Server holds an agent (an Executor), its AgentCard and its tasks.
// Serve its endpoint with (*Server).ServeFastHTTP (POST /a2a) and its card
// with (*Server).Card (GET /.well-known/agent-card.json). The A2A-Version
// header of a request picks the wire: "1.0" (the PascalCase methods,
// SendMessage ... GetExtendedAgentCard, ProtoJSON enums such as
// TASK_STATE_WORKING) or "0.3" (message/send ... tasks/resubscribe, kind
// discriminators); no header means 0.3 and any other version is -32009.
// Both wires bind their params through dispatch.Typed on an engine of
// their own, so the JSON-RPC envelope rules of the rest of jetrpc hold.
//
// Every event of a task is numbered from 1 and stored, rendered for both
// wires, in a streamstore.Store (the store MCP's resumable streams use
// too; a streamstore.Memory unless Options.Events names a shared one). An
// SSE event carries "id: N"; a subscribe (SubscribeToTask, tasks/resubscribe) with
// Last-Event-ID: N gets the stored events after N and then the live ones,
// without a gap or a duplicate. Without it, the subscription begins with
// the task as it is (its id is the last event it includes).
//
// Replicas share a store that is also a streamstore.SessionStore and a
// streamstore.Follower (streamstore/natsstore's): each event then saves
// the task's state too, so that any replica answers GetTask for a task another one
// runs, and a subscription there (with or without Last-Event-ID) replays
// the stored events and follows those the owner goes on appending. The
// executor stays where the task began: if that replica dies before the
// task ends, its remaining events are never made, and a subscriber
// elsewhere waits (keep-alives) until it leaves. Cancelling, follow-up
// messages and push configs go to the owner; another replica answers
// them with reason "remote" in the ErrorInfo.
//
// Push webhooks are guarded against SSRF: a config whose URL is not
// http(s) or names or resolves to a loopback, private, link-local,
// multicast or unspecified address is -32602, and the Pusher checks every
// address it connects to (DNS rebinding, redirects) again, unless
// Options.AllowPrivateWebhooks and PusherOptions.AllowPrivate allow them.
//
// Errors are the A2A codes -32001 to -32009 (the Err* values); error.data
// holds a google.rpc.ErrorInfo with the reason, as A2A 1.0 defines it.
package a2a
