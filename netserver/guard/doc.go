// Package guard decides who may use a netserver server and how much: the
// Host check (HostPolicy, against DNS rebinding), the Origin policy and
// CORS of browser requests (OriginPolicy), authentication (an
// auth.Authenticator) and the per-client limits (a rate per client and
// connections per address).
//
// A user builds one Guard from Options and gives it to the servers:
//
//	g := guard.New(&guard.Options{Auth: authn, RateLimit: 100})
//	tcp := netserver.New(e, &netserver.Options{Guard: g})
//	web := nethttp.New(e, &netserver.Options{Guard: g})
//
// Servers that share a Guard share its table of clients, so that a
// client's calls and connections count across them. A server without one
// authenticates nobody, limits nobody and refuses only browser origins
// other than the request's own host.
//
// # Where the identity comes from
//
//   - HTTP: every request, from its headers (Authorization: Bearer), the
//     TLS state and the address. A keep-alive connection that sends the
//     same Authorization header again keeps the identity it got for it
//     until the identity's Until (no allocation, no second check). A
//     refused request gets 401 with WWW-Authenticate.
//   - WebSocket: the upgrade request, as HTTP (401 refuses the upgrade);
//     the connection keeps the identity for its lifetime.
//   - SSE: the POST that opens the stream, as HTTP.
//   - TCP and stdio: at the start, from the TLS client certificate (or
//     anything else the authenticator reads in a Request without a
//     token). When that gives no identity, the first message must be the
//     authenticating call AuthMethod (see Gate.Authenticate): TOKEN goes
//     to the authenticator as a bearer token would over HTTP. Any other
//     first message, or a refused token, is answered -32006 Unauthorized
//     (error.data says why) and the connection is closed after that
//     answer. rpc.* names are reserved for the server by the JSON-RPC
//     specification, so no method of the engine can clash with it; it is
//     answered only before authentication (later it is -32601 like any
//     unknown method).
//
// Handlers read the identity with auth.IdentityOf.
//
// # The order of the checks
//
// Over HTTP the browser layer runs first (AdmitBrowser: Host, Origin, CORS;
// cors.go), then the request's authentication and rate (AdmitRequest;
// http.go). A stream connection (TCP, stdio, WebSocket) has a Gate, which
// decides about each message (gate.go). The buckets are in limit.go.
package guard
