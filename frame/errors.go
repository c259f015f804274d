package frame

import (
	"errors"
	"strconv"
)

// ErrBroken means the stream's framing is damaged in a way the Reader cannot
// recover from (a malformed header block). Errors returned for it wrap
// ErrBroken: test with errors.Is. A broken Reader returns the same error from
// every later call to Next.
var ErrBroken = errors.New("frame: broken framing, cannot resynchronise")

// TooLargeError reports a frame over the message limit. The Reader has
// skipped (or will skip, on the next call to Next) the frame's bytes without
// buffering them, and goes on with the next frame.
//
// The Reader returns a pointer to a value it owns, so that reporting the error
// does not allocate: the value is overwritten by the next oversized frame.
// Copy it if it must outlive the next call to Next.
type TooLargeError struct {
	// Size is the declared length for Header and Len32. For NDJSON it is the
	// number of bytes of the line seen when the Reader gave up, a lower
	// bound of the line's length.
	Size int64
	// Limit is the Reader's message limit.
	Limit int
}

func (e *TooLargeError) Error() string {
	return "frame: message of at least " + strconv.FormatInt(e.Size, 10) +
		" bytes exceeds the limit of " + strconv.Itoa(e.Limit) + " bytes"
}

// brokenError is the error of a broken Reader: ErrBroken and the reason.
type brokenError struct{ reason string }

func (e *brokenError) Error() string { return ErrBroken.Error() + ": " + e.reason }
func (e *brokenError) Unwrap() error { return ErrBroken }
