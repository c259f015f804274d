// Package rpcmsg holds the small pieces both ends of a connection need when
// they send calls and read the answers: Go params encoded into a request
// and Go results decoded (codec.go, through internal/marshal and
// internal/unmarshal), params checked, and a received error object turned
// into an *encode.Error. The client and the server's peer (dispatch.Peer)
// share them.
package rpcmsg

import (
	"bytes"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
)

// CheckParams returns bad unless params is empty or starts like an array or
// an object (after whitespace).
func CheckParams(params []byte, bad error) error {
	for _, b := range params {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '[', '{':
			return nil
		}
		return bad
	}
	if len(params) > 0 { // only whitespace
		return bad
	}
	return nil
}

// ParseError turns the raw error member of an error response (a validated
// object) into an *encode.Error. A code that is not an integer reads as 0.
func ParseError(raw []byte) *encode.Error {
	e := &encode.Error{}
	var it decode.Iter
	if !it.Reset(raw) || !it.IsObject() {
		e.Message, e.Data = "malformed error object", bytes.Clone(raw)
		return e
	}
	for it.Next() {
		v := it.Value()
		switch {
		case decode.KeyEquals(it.Key(), "code"):
			if n, err := decode.ParseInt(v); err == nil && n == int64(int32(n)) {
				e.Code = encode.Code(n)
			}
		case decode.KeyEquals(it.Key(), "message"):
			if s, err := decode.AppendUnquote(nil, v); err == nil {
				e.Message = string(s)
			}
		case decode.KeyEquals(it.Key(), "data"):
			e.Data = bytes.Clone(v)
		}
	}
	return e
}

// ParseID reads a response id written the way this module writes the ids
// of its own calls: a decimal integer from 1 to MaxUint64 without sign,
// exponent or leading zero. Any other id matches no call.
func ParseID(raw []byte) (uint64, bool) {
	if len(raw) == 0 || len(raw) > 20 || raw[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, b := range raw {
		d := uint64(b - '0')
		if d > 9 || n > (^uint64(0)-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
