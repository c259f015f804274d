// Package unmarshal decodes one JSON value into a Go value through a decoder
// program compiled once per type (reflection in Compile, never per call).
//
// A Decoder fills its target through precomputed field offsets and unsafe
// pointer arithmetic: no reflect, fmt or interface boxing on the hot path for
// numbers, bools, strings, arrays, slices, pointers and structs. The decoder
// checks the JSON syntax of every byte it reads, so it never crashes or reads
// out of bounds on any input, and it rejects type mismatches as
// encoding/json does.
//
// Fallback decision: kinds encoding/json cannot decode into (chan, func,
// complex, unsafe.Pointer, non-empty interfaces), the ",string" tag option
// and embedded pointers to structs make Compile return an error; there is no
// silent fallback to encoding/json or sonic. Maps, json.Unmarshaler,
// encoding.TextUnmarshaler and `any` are supported on a slower path that
// allocates (maps use reflect per member).
//
// Semantics differ from encoding/json in one place: a slice is always
// decoded into a fresh backing array, never into the existing one.
package unmarshal
