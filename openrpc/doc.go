// Package openrpc describes a jetrpc engine's methods as an OpenRPC 1.3
// document (https://spec.open-rpc.org) and answers "rpc.discover" with it.
//
// [Enable] registers the discovery method on a [dispatch.Engine]. When the
// engine freezes, [Build] writes the document from the registered methods:
// each one's name, its params, param structure and result, and the
// summary, description, deprecation, errors and examples of its
// [MethodDoc], given beside its registration ([Service.Describe] or
// [Options].Methods; the engine never reads them). For a [dispatch.Typed]
// handler the params and result come from the Go types P and R, with the
// rules of the binder that serves them (see [Schemas] for the JSON Schema
// of a Go type); a raw handler describes them by hand in MethodDoc.Params
// and MethodDoc.Result. Shared struct types are written once, in
// components/schemas, and referred to with $ref.
//
// The document is built once and served as bytes, so rpc.discover costs
// what a raw handler appending them costs. [Service.Document] gives the
// same bytes to other endpoints, such as GET /openrpc.json.
//
// Package openrpc/gen goes the other way: from a document (any server's) to
// a typed Go client and server interface.
package openrpc
