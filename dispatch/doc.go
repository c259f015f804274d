// Package dispatch is the jetrpc engine: a frozen method table, handler kinds,
// middleware and [Engine.Process], which turns the bytes of one JSON-RPC 2.0
// message (single or batch) into the bytes of its response.
//
// Two handler kinds exist. A raw [Handler] gets the params as raw JSON bytes
// and appends its result to dst: no allocation, no reflection. [Typed] wraps
// a func(ctx, P) (R, error): it binds params by position or by name with
// encoding/json's rules and encodes R, through a decoder and an encoder
// compiled once for P and R, so params and results of numbers, bools, fixed
// arrays and structs of them cost no allocation either.
//
// Registration happens before the first message; the first call to Process
// (or an explicit [Engine.Freeze]) freezes the table, composes middleware and
// makes the Engine safe for concurrent use.
//
// Package netserver serves an Engine over TCP, stdio, HTTP, WebSocket and
// SSE (netserver.New); a handler reaches the client of its connection
// through [PeerOf]. How a transport hands messages to the engine is
// internal to jetrpc, so that this package shows what a user calls.
package dispatch
