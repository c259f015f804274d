package decode

import (
	"strconv"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// isNumber reports whether num is exactly one JSON number token.
func isNumber(num []byte) bool {
	if len(num) == 0 {
		return false
	}
	end, c := scanNumber(num, 0)
	return c == codeOK && end == len(num)
}

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
	if !isNumber(num) {
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
	if !isNumber(num) {
		return 0, ErrSyntax
	}
	return strconv.ParseFloat(bytesconv.B2S(num), 64)
}
