// Package unmarshal decodes one JSON value into a Go value through a decoder
// program compiled once per type (reflection in Compile, never per call).
//
// A Decoder fills its target through precomputed field offsets and unsafe
// pointer arithmetic. It reads JSON that internal/scan (decode's scanner)
// has validated, and does not validate it again: DecodeValid is for values
// decode validated (a message's params or result), Decode validates first
// (encoding/json's grammar, with decode's depth limit). Either never
// crashes or reads out of bounds on any input. Its semantics are
// encoding/json's (FuzzDecode compares the two on every kind below), with
// two differences: a slice is always decoded into a fresh backing array,
// never into the existing one, and nesting stops at decode's limit
// (scan.DefaultMaxDepth, 1000) instead of 10000.
//
// Supported: bool, all integer and float kinds, string, []byte (base64),
// pointers, slices, arrays, structs (tags, "-", case-insensitive names,
// embedded structs and embedded pointers to structs with encoding/json's
// visibility rules, the ",string" option), maps with string, integer or
// encoding.TextUnmarshaler keys, `any`, json.RawMessage, json.Number,
// json.Unmarshaler and encoding.TextUnmarshaler (found on the pointer as
// encoding/json finds them: not for an unnamed type in a value position nor
// under a named pointer type). Embedded pointers are allocated when one of
// their members is decoded; a nil embedded pointer to an unexported struct
// is a Decode error, as in encoding/json.
//
// Ownership: nothing a Decoder stores aliases the input. Strings, []byte,
// json.RawMessage, json.Number, slices, map keys and everything under `any`
// own their memory, because typed handlers may keep their params after the
// call while the engine reuses the message buffer. UnmarshalJSON and
// UnmarshalText do get slices of the input (or of a scratch buffer), as
// encoding/json gives them: their contract is to copy what they keep.
//
// Allocations per Decode, asserted in alloc_test.go: none for numbers,
// bools, fixed arrays and structs of them (and for a pointer already set);
// one per string (its bytes; "" and 1-byte strings none), per json.Number,
// per RawMessage (the copy, null included), per non-empty slice (its
// backing array, sized by counting the elements first) and per []byte
// (two when its base64 has escapes).
// A new map costs what make(map, n) and n inserts cost in Go code (the
// members are counted first for the size hint: 1 allocation for {}, 2 up to
// 8 members, 4 up to a few hundred), plus one per new string key; integer
// keys cost nothing more, and an existing map is added to (encoding/json
// does) without allocating for the map. Elements are decoded straight into
// the map's slot (runtime.mapassign, see alloc.go). A TextUnmarshaler key
// costs a new key value, a string key with elements over 128 bytes a key
// header; `any`, UnmarshalJSON and UnmarshalText allocate what they build.
//
// Compile fails (and callers fall back to sonic) for what encoding/json
// cannot decode into: chan, func, complex and unsafe.Pointer kinds,
// non-empty interfaces, and maps whose key is none of string, integer or
// TextUnmarshaler. There is no silent fallback inside this package.
package unmarshal
