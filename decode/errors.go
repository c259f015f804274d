package decode

import (
	"errors"
	"strconv"
)

// The sentinel errors wrapped by [SyntaxError].
var (
	ErrSyntax    = errors.New("decode: invalid JSON")
	ErrUTF8      = errors.New("decode: invalid UTF-8")
	ErrTruncated = errors.New("decode: unexpected end of input")
	ErrDepth     = errors.New("decode: nesting too deep")
)

// SyntaxError reports bytes that are not one valid JSON value, with the byte offset where the
// problem was found. Err is one of ErrSyntax, ErrUTF8, ErrTruncated or ErrDepth.
//
// A Parser returns a pointer to its own SyntaxError, so the value is overwritten by the next
// Parse; copy it to keep it.
type SyntaxError struct {
	Offset int
	Err    error
}

// Error returns the sentinel's text followed by the offset.
func (e *SyntaxError) Error() string {
	msg := "decode: syntax error"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return msg + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns the sentinel, for errors.Is.
func (e *SyntaxError) Unwrap() error { return e.Err }

// code is the scanner's internal result: ok, or which sentinel to report. Scanner functions
// return it beside an offset instead of an error value so nothing is boxed on the hot path.
type code uint8

const (
	codeOK code = iota
	codeSyntax
	codeUTF8
	codeTruncated
	codeDepth
)

// err returns the sentinel for c (nil for codeOK).
func (c code) err() error {
	switch c {
	case codeOK:
		return nil
	case codeUTF8:
		return ErrUTF8
	case codeTruncated:
		return ErrTruncated
	case codeDepth:
		return ErrDepth
	}
	return ErrSyntax
}
