// Package scan holds the JSON scanner of jetrpc: the one set of primitives
// that decode validates messages with, that internal/unmarshal decodes
// validated params and results with, and that internal/marshal's
// compactor checks MarshalJSON output with.
//
// Everything works on one complete input held in a []byte plus an int
// offset, in the shape of go-json-experiment's jsonwire Consume* functions:
// a function gets the offset of the first byte of what it scans and returns
// the offset just past it, with a Code (OK, or what is wrong; on error the
// offset is where the problem was found). Codes instead of error values keep
// the hot path free of interface boxing; decode turns a Code into its own
// SyntaxError. Running out of bytes is always Truncated, so every proper
// prefix of a value reports it.
//
// Validating: SkipWS, String, Number, Literal, Scalar, and the Scanner for
// nested values (RFC 8259, UTF-8, a depth limit). Reading what was
// validated: Skip (the end of a value, checking only quotes and brackets),
// AppendUnescaped and DecodeEscape (the one unquoting of string contents).
//
// # SIMD
//
// Built with GOEXPERIMENT=simd on amd64 (Go 1.26's simd/archsimd), the
// scanner gets SIMD lanes (simd_amd64.go, simd_walk_amd64.go): 64 bytes at a
// time are classified into bit masks (AVX-512, or two AVX2 halves; the CPU is
// checked at start-up) and Composite walks the tokens the masks give, strings
// are scanned a block at a time, and runs of integers in arrays are checked
// on the masks. They accept only what the portable code accepts and hand
// anything else back to it, so every answer and error offset is the same on
// both paths (FuzzSIMD compares them). The default build, and a CPU without
// AVX2, use the portable code only:
//
//	GOEXPERIMENT=simd go build ./...
package scan

// DefaultMaxDepth is the nesting limit a Scanner applies when given none:
// decode's (decode.DefaultMaxDepth), and so the only one values that reach
// internal/unmarshal have passed.
const DefaultMaxDepth = 1000

// Code is a scanner's result: OK, or what is wrong.
type Code uint8

// The codes a scanner returns.
const (
	OK        Code = iota
	Syntax         // not JSON
	UTF8           // a string holds bytes that are not UTF-8
	Truncated      // the input ends inside the value
	Depth          // nesting deeper than the limit
)
