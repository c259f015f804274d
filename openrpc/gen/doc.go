// Package gen writes a typed Go client and server interface from an
// OpenRPC document (https://spec.open-rpc.org), any server's: the code
// behind "jetrpc gen".
//
// The generated package has one Go type for each schema in the document's
// components, a Client with one method for each RPC method, calling
// through a [client.Client] (TCP, HTTP, WebSocket and stdio alike), a
// Server interface with the same methods, Register, which serves an
// implementation on a [dispatch.Engine] as [dispatch.Typed] handlers, and
// Docs, the methods' summaries and descriptions for
// [openrpc.Options.Methods].
//
// Schemas map to Go types as encoding/json would decode them: boolean to
// bool; integer to int64, or the integer kind whose exact range minimum
// and maximum give (so a jetrpc server's int8 comes back as int8); number
// to float64; string to string, time.Time for format date-time and []byte
// for base64; array to a slice of its items (a tuple to []any); an object
// with properties to a struct (required members as values, the others
// omitempty, struct members of struct type as pointers when optional or
// recursive); allOf of objects to one struct of all their members; an
// object of additionalProperties to a map[string]T; a $ref to a component
// to that component's type; anything else ({}, oneOf of several kinds) to
// any.
//
// A method's params are its Go method's arguments, in order; the last one
// repeats (...T) when the document marks it "x-variadic". The client sends
// them by name, as a struct, unless the method's paramStructure is
// "by-position", in which case it sends an array (of the params' one type
// when they share it, else of any), so a call allocates no more than
// client.Call with the same values. A method without a result is sent as a
// notification; a result of type null leaves only the error. Methods with
// reserved "rpc." names are called by the Client but not served by Register
// (nor described by Docs).
package gen
