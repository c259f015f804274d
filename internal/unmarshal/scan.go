package unmarshal

// NOTE: the scanning primitives work on int offsets into a complete []byte
// and check the JSON grammar; i is always a value's first byte (after
// whitespace), and the result is the offset just after it.

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth matches encoding/json's nesting limit.
const maxDepth = 10000

func skipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// literal checks that data[i:] starts with lit.
func literal(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, syntaxErr(i)
	}
	return i + len(lit), nil
}

// scanString checks the string at data[i] (a '"') and returns the offset
// after its closing quote; plain reports it has no escapes and is ASCII.
func scanString(data []byte, i int) (end int, plain bool, err error) {
	plain = true
	for j := i + 1; j < len(data); j++ {
		c := data[j]
		switch {
		case c == '"':
			return j + 1, plain, nil
		case c < 0x20:
			return 0, false, syntaxErr(j)
		case c >= 0x80:
			plain = false
		case c == '\\':
			plain = false
			j++
			if j >= len(data) {
				return 0, false, syntaxErr(j)
			}
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-j < 5 || getHex4(data[j+1:]) < 0 {
					return 0, false, syntaxErr(j)
				}
				j += 4
			default:
				return 0, false, syntaxErr(j)
			}
		}
	}
	return 0, false, syntaxErr(len(data))
}

func getHex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// getU4 decodes \uXXXX at the start of s, or returns -1.
func getU4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	return getHex4(s[2:])
}

// appendUnquote appends the unescaped content s of a checked string (without
// its quotes) to dst, replacing invalid UTF-8 and invalid surrogates by
// U+FFFD as encoding/json does.
func appendUnquote(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := getU4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					rr1 := getU4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst
}

// scanNumber checks the number at data[i] and returns its end, or -1.
func scanNumber(data []byte, i int) int {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	if j >= len(data) {
		return -1
	}
	if data[j] == '0' {
		j++
	} else if data[j] >= '1' && data[j] <= '9' {
		for j < len(data) && isDigit(data[j]) {
			j++
		}
	} else {
		return -1
	}
	if j < len(data) && data[j] == '.' {
		j++
		k := j
		for j < len(data) && isDigit(data[j]) {
			j++
		}
		if j == k {
			return -1
		}
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		k := j
		for j < len(data) && isDigit(data[j]) {
			j++
		}
		if j == k {
			return -1
		}
	}
	return j
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipValue checks the value at data[i] and returns its end.
func skipValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return 0, syntaxErr(i)
	}
	switch c := data[i]; c {
	case '"':
		end, _, err := scanString(data, i)
		return end, err
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	case '[', '{':
		return skipContainer(data, i, depth)
	default:
		if j := scanNumber(data, i); j >= 0 {
			return j, nil
		}
		return 0, syntaxErr(i)
	}
}

func skipContainer(data []byte, i, depth int) (int, error) {
	if depth >= maxDepth {
		return 0, typeErr("exceeded max depth", i)
	}
	obj := data[i] == '{'
	close := byte(']')
	if obj {
		close = '}'
	}
	j := skipWS(data, i+1)
	if j < len(data) && data[j] == close {
		return j + 1, nil
	}
	for {
		var err error
		if obj {
			if j >= len(data) || data[j] != '"' {
				return 0, syntaxErr(j)
			}
			if j, _, err = scanString(data, j); err != nil {
				return 0, err
			}
			if j = skipWS(data, j); j >= len(data) || data[j] != ':' {
				return 0, syntaxErr(j)
			}
			j = skipWS(data, j+1)
		}
		if j, err = skipValue(data, j, depth+1); err != nil {
			return 0, err
		}
		if j = skipWS(data, j); j >= len(data) {
			return 0, syntaxErr(j)
		}
		switch data[j] {
		case ',':
			j = skipWS(data, j+1)
		case close:
			return j + 1, nil
		default:
			return 0, syntaxErr(j)
		}
	}
}

// next moves past the separator after a container's member at j: it returns
// the next member's offset (always inside data), or done at the closing
// bracket.
func next(data []byte, j int, close byte) (int, bool, error) {
	if j = skipWS(data, j); j >= len(data) {
		return 0, false, syntaxErr(j)
	}
	switch data[j] {
	case ',':
		if j = skipWS(data, j+1); j < len(data) {
			return j, false, nil
		}
	case close:
		return j + 1, true, nil
	}
	return 0, false, syntaxErr(j)
}
