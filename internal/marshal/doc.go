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
// encode.AppendString does. Everything else follows encoding/json, also
// where sonic's default differs: map keys are sorted, invalid UTF-8 becomes
// \ufffd, U+2028 and U+2029 are escaped, and json.Marshaler output is
// validated and compacted.
//
// Paths that allocate, by design: maps (a copy of the entries to sort the
// keys: one or two allocations per map), interface values whose dynamic type
// is pointer-shaped such as map[string]any (one word), the methods of
// json.Marshaler and encoding.TextMarshaler (whatever they allocate, plus a
// copy of the value for value receivers), strings with the ",string" tag
// option, and omitzero fields of types with an IsZero method.
//
// Values are treated as addressable, like encoding/json.Marshal(&v): a
// pointer-receiver MarshalJSON is called for fields and elements, except
// under map values and interfaces, as encoding/json does.
//
// Unsupported types (chan, func, complex, unsafe.Pointer, maps with other
// keys) make Compile fail with an *Error; behind an interface they fail at
// Append time. Pointer cycles fail with an *Error after maxDepth levels
// instead of exhausting the stack.
package marshal
