package decode

import (
	"strconv"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/scan"
)

// ParseInt parses the JSON number token num as an int64 without allocating. It returns ErrSyntax
// when num is not a JSON number or has a fraction or exponent (`1.0`, `1e3`), and strconv's
// range error when it does not fit.
func ParseInt(num []byte) (int64, error) {
	i := 0
	if len(num) > 0 && num[0] == '-' {
		i = 1
	}
	digits := len(num) - i
	if digits == 0 || digits > 18 || num[i] == '0' && digits > 1 {
		return parseIntSlow(num)
	}
	var v int64
	for _, b := range num[i:] {
		d := b - '0'
		if d > 9 {
			return 0, ErrSyntax // a fraction, an exponent or not a number
		}
		v = v*10 + int64(d)
	}
	if i == 1 {
		v = -v
	}
	return v, nil
}

// parseIntSlow is ParseInt for the empty token, a leading zero and 19 or
// more digits.
func parseIntSlow(num []byte) (int64, error) {
	if !scan.IsNumber(num) {
		return 0, ErrSyntax
	}
	for _, b := range num {
		if b == '.' || b == 'e' || b == 'E' {
			return 0, ErrSyntax
		}
	}
	return strconv.ParseInt(bytesconv.B2S(num), 10, 64)
}

// ParseFloat parses the JSON number token num as a float64 without allocating. It returns
// ErrSyntax when num is not a JSON number, and strconv's range error (with ±Inf) when it is out
// of range.
func ParseFloat(num []byte) (float64, error) {
	if !scan.IsNumber(num) {
		return 0, ErrSyntax
	}
	return strconv.ParseFloat(bytesconv.B2S(num), 64)
}

// Valid reports whether data is one valid JSON value (RFC 8259, UTF-8) with optional whitespace
// around it, nesting at most maxDepth containers (0 means DefaultMaxDepth). It is the validator
// Parse uses, and allocates only when maxDepth is above 1024.
func Valid(data []byte, maxDepth int) bool { return scan.Valid(data, maxDepth) }
