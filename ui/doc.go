// Package ui is jetrpc's web console: one page, embedded in the binary,
// that lists a server's methods from its OpenRPC document, builds params
// from their JSON Schemas, and sends calls, notifications and batches over
// HTTP or WebSocket. It is plain JavaScript with no dependencies and no
// build step, and it works offline.
//
// Two ways to serve it:
//
//   - [Handler] serves the page's files under any path that ends in "/".
//     jetrpc serve --ui mounts it at /ui/ on its HTTP listener
//     (netserver.Options.Mounts): the page then posts to / and opens /ws on
//     its own origin.
//   - [Server] is the page plus a [Proxy] for any JSON-RPC server, jetrpc
//     or not (jetrpc ui TARGET): http(s)://, ws(s):// or tcp://. A POST
//     from the page is relayed over one shared connection to the target;
//     the page's WebSocket gets a target connection of its own, so what the
//     target sends on its own (subscriptions, calls) reaches the page.
//
// The page's elements carry data-testid hooks (method-list, method-filter,
// param-NAME, params-json, transport, send, notify, batch-add, batch-send,
// response, error-code, history, notifications) that browser tests rely on.
package ui
