package scan

import "bytes"

// Skip returns the offset just past the already-validated JSON value that starts at data[i]
// after optional whitespace, or -1 when there is no complete value there. It checks only the
// structure it needs (quotes and brackets), so it is faster than validating, and never panics on
// any input.
func Skip(data []byte, i int) int {
	if i < 0 {
		return -1
	}
	i = SkipWS(data, i)
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				if i = SkipString(data, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	// A number or a literal: up to the next delimiter.
	start := i
	for i < len(data) && !IsSpace(data[i]) && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ':' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// SkipString returns the offset after the closing quote of the validated string opening at
// data[i], or -1 if it is not closed.
func SkipString(data []byte, i int) int {
	i++
	for {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			return -1
		}
		i += k
		// The quote is escaped iff an odd run of backslashes precedes it.
		n := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			n++
		}
		i++
		if n&1 == 0 {
			return i
		}
	}
}
