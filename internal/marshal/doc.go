// Package marshal encodes Go values as JSON by appending to a caller's
// buffer, with an encoder program compiled once per type.
//
// Compile inspects a type with reflect once and builds a tree of small
// encoder functions with precomputed field offsets and pre-escaped keys.
// Append then walks the value through unsafe pointers: no reflect, fmt or
// interface boxing per call, and no allocation for numbers, bools, strings,
// structs, arrays, slices and pointers of them when dst has capacity.
//
// The output is byte-for-byte that of encoding/json.Marshal with HTML
// escaping off (json.Encoder.SetEscapeHTML(false)): '<', '>' and '&' are
// written as they are, which is what jetrpc emits today through
// sonic.Marshal (sonic.ConfigDefault has EscapeHTML false) and what
// encode.AppendString, used here for every string, does. Invalid UTF-8
// becomes \ufffd and U+2028/U+2029 are escaped, as in encoding/json (sonic's
// default copies invalid UTF-8 as it is).
//
// Supported today: bool, integers, floats (NaN and infinities are an
// *Error), string, []byte (base64), pointers, slices, arrays and structs
// with json tags (name, omitempty, "-"), maps with string or integer keys
// (sorted; a few allocations per map, see mapEnc), and interfaces (by the
// cached encoder of the dynamic type; one word allocated for a pointer-shaped
// dynamic value such as a map). Types with
// MarshalJSON or MarshalText methods, embedded fields, and chan, func and
// complex types make Compile fail with an *Error. Values are treated as
// addressable, like encoding/json.Marshal(&v).
//
// Nesting deeper than maxDepth pointers and slices (a pointer cycle) is an
// *Error instead of a stack overflow.
package marshal
