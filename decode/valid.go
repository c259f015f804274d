package decode

// Valid reports whether data is one valid JSON value (RFC 8259, UTF-8) with optional whitespace
// around it, nesting at most maxDepth containers (0 means DefaultMaxDepth). It is the validator
// Parse uses, and allocates only when maxDepth is above 1024.
func Valid(data []byte, maxDepth int) bool {
	i := skipWS(data, 0)
	if i >= len(data) {
		return false
	}
	var c code
	if b := data[i]; b != '{' && b != '[' { // a scalar needs no container stack
		i, c = scalar(data, i)
	} else {
		var s scanner
		s.setLimit(maxDepth)
		i, c = s.composite(data, i, 0)
	}
	return c == codeOK && skipWS(data, i) == len(data)
}
