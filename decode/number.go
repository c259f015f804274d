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
	if !isNumber(num) {
		return 0, ErrSyntax
	}
	digits := num
	if num[0] == '-' {
		digits = num[1:]
	}
	var v int64
	for _, b := range digits {
		if b-'0' >= 10 {
			return 0, ErrSyntax // a fraction or an exponent
		}
		v = v*10 + int64(b-'0') // may wrap past 18 digits; then strconv decides below
	}
	if len(digits) > 18 {
		return strconv.ParseInt(bytesconv.B2S(num), 10, 64)
	}
	if num[0] == '-' {
		v = -v
	}
	return v, nil
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
