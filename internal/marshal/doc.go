// Package marshal encodes Go values as JSON by appending to a caller's
// buffer, with an encoder program compiled once per type.
//
// Compile inspects a type with reflect once and builds a tree of small
// encoder functions with precomputed field offsets and pre-escaped keys.
// Append then walks the value through unsafe pointers: no fmt or interface
// boxing per call, and no reflect except where a value needs it (maps,
// interface values, omitzero on a struct or array field without an IsZero
// method); MarshalJSON, MarshalText and IsZero methods are called through
// an interface value built from the pointer, without reflect.
//
// The output is byte-for-byte that of encoding/json.Marshal with HTML
// escaping off (json.Encoder.SetEscapeHTML(false)): '<', '>' and '&' are
// written as they are, which is what jetrpc emits today through
// sonic.Marshal (sonic.ConfigDefault has EscapeHTML false) and what
// encode.AppendString, used here for every string, does. Invalid UTF-8
// becomes \ufffd and U+2028/U+2029 are escaped, as in encoding/json (sonic's
// default copies invalid UTF-8 as it is).
//
// Supported: bool, integers, floats (NaN and infinities are an *Error),
// string, json.Number (the literal; "" is 0; an invalid one is an *Error),
// []byte (base64), pointers, slices, arrays, maps with string, integer or
// TextMarshaler keys (sorted), interfaces (by the cached encoder of the
// dynamic type), and structs with encoding/json's field rules: tags (name,
// omitempty, omitzero with IsZero methods, ",string" on bools, numbers,
// strings and pointers to them, "-"), embedded structs and pointers to
// structs (a nil one's fields are skipped) with the same visibility rules
// (shallowest depth wins, then the tagged field, a tie drops the name) and
// the same order. Types with MarshalJSON or MarshalText get them called as
// encoding/json calls them: pointer-receiver methods only for addressable
// values; MarshalJSON output is checked and compacted as encoding/json does
// (an invalid one is an *Error). json.RawMessage is checked and compacted
// without calling its method (nil is null; empty is an error, as in
// encoding/json).
//
// Values are treated as addressable, like encoding/json.Marshal(&v): the
// value at p, pointees, slice elements and the fields and elements of
// those are addressable; map values and the dynamic values of interfaces
// are not (pointer-receiver methods do not apply to them).
//
// What allocates: nothing for numbers, bools, strings, json.Number,
// json.RawMessage (also with whitespace to drop), structs (embedded fields,
// ",string", omitempty, omitzero without an IsZero method or with one that
// does not allocate), arrays, slices and pointers of them when dst has
// capacity. A MarshalJSON or MarshalText call allocates what the method
// allocates, nothing more (its result is compacted or escaped straight
// into dst). A map costs a few allocations (see mapEnc), and up to one
// string per integer or TextMarshaler key more. A pointer-shaped dynamic value behind
// an interface, such as a map, costs one word. An omitzero field of a
// non-addressable value (a map value) whose IsZero has a pointer receiver
// costs a copy of the field.
//
// Compile fails with an *Error for a type that contains chan, func,
// complex or unsafe.Pointer types without MarshalJSON or MarshalText
// methods, or maps with keys other than strings, integers and
// TextMarshalers, wherever they sit (encoding/json fails on them too, but
// only when it meets one: a nil []chan int is null there). Append fails for
// such a type met as the dynamic type of an interface.
//
// Nesting deeper than maxDepth pointers and slices (a pointer cycle) is an
// *Error instead of a stack overflow.
package marshal
