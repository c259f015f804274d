package demo

import (
	"math"
	"strconv"

	"github.com/jetrpc/jetrpc/decode"
)

// number accumulates JSON numbers exactly as integers while they fit in
// int64, and as float64 from the first fraction, exponent or overflow on.
type number struct {
	i       int64
	f       float64
	isFloat bool
}

// add adds sign*raw, raw being a JSON value; it reports false when raw is not a number.
func (n *number) add(raw []byte, sign int64) bool {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return false
	}
	if !n.isFloat {
		if v, err := decode.ParseInt(raw); err == nil {
			if r, ok := addInt(n.i, sign*v); ok && !(sign < 0 && v == math.MinInt64) {
				n.i = r
				return true
			}
		}
		n.isFloat, n.f = true, float64(n.i)
	}
	v, err := decode.ParseFloat(raw)
	if err != nil {
		return false
	}
	n.f += float64(sign) * v
	return true
}

func addInt(a, b int64) (int64, bool) {
	r := a + b
	return r, (r > a) == (b > 0)
}

func (n *number) appendTo(dst []byte) ([]byte, error) {
	if !n.isFloat {
		return strconv.AppendInt(dst, n.i, 10), nil
	}
	if math.IsInf(n.f, 0) || math.IsNaN(n.f) {
		return dst, errRange
	}
	return strconv.AppendFloat(dst, n.f, 'g', -1, 64), nil
}
