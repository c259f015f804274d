package marshal

import "github.com/jetrpc/jetrpc/internal/scan"

// AppendValid appends src, which must be one JSON value that a scanner has
// already validated (such as params the engine's decoder checked), to dst
// without the whitespace between its tokens: what compact appends for it,
// without checking it again. Input that is already compact is one append.
func AppendValid(dst, src []byte) []byte {
	start := 0
	for i := 0; i < len(src); {
		switch b := src[i]; {
		case b == '"':
			if i = scan.SkipString(src, i); i < 0 {
				return append(dst, src[start:]...) // not closed: cannot be, the input is valid
			}
		case b <= ' ': // whitespace, the only bytes <= ' ' outside strings
			dst = append(dst, src[start:i]...)
			i = scan.SkipWS(src, i)
			start = i
		default:
			i++
		}
	}
	return append(dst, src[start:]...)
}
