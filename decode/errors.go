package decode

import (
	"errors"
	"strconv"

	"github.com/jetrpc/jetrpc/internal/scan"
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

// errOf returns the sentinel for the scanner's code c (nil for scan.OK).
func errOf(c scan.Code) error {
	switch c {
	case scan.OK:
		return nil
	case scan.UTF8:
		return ErrUTF8
	case scan.Truncated:
		return ErrTruncated
	case scan.Depth:
		return ErrDepth
	}
	return ErrSyntax
}
