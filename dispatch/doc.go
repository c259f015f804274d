// Package dispatch is the jetrpc engine: a frozen method table, handler kinds,
// middleware and [Engine.Process], which turns the bytes of one JSON-RPC 2.0
// message (single or batch) into the bytes of its response.
//
// Two handler kinds exist. A raw [Handler] gets the params as raw JSON bytes
// and appends its result to dst: no allocation, no reflection. [Typed] wraps
// a func(ctx, P) (R, error) and binds params by position or by name with
// sonic; it is the convenient layer on top, not the only one.
//
// Registration happens before the first message; the first call to Process
// (or an explicit [Engine.Freeze]) freezes the table, composes middleware and
// makes the Engine safe for concurrent use.
package dispatch
