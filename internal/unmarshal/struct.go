package unmarshal

import (
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/scan"
)

func structDec(fields []Field) decFn {
	return func(data []byte, i int, p unsafe.Pointer, repair bool) (int, error) {
		switch data[i] {
		case '{':
		case 'n':
			return null(data, i)
		default:
			return mismatch(data, i, "object")
		}
		j, done, err := open(data, i, '}')
		for err == nil && !done {
			var key []byte
			var buf [64]byte
			if key, j, err = objectKey(data, j, buf[:0], repair); err != nil {
				return 0, err
			}
			if f := match(fields, key); f != nil {
				if j, err = f.Decoder.fn(data, j, add(p, f.Offset), repair); err != nil {
					return 0, wrapField(err, f.Name)
				}
			} else if j, err = skipValue(data, j); err != nil {
				return 0, err
			}
			j, done, err = next(data, j, '}')
		}
		return j, err
	}
}

// objectKey reads the key and colon of an object member at data[j] and
// returns the unescaped key (aliasing data or buf) and the value's offset.
func objectKey(data []byte, j int, buf []byte, repair bool) ([]byte, int, error) {
	end, v, esc, err := memberKey(data, j)
	if err != nil {
		return nil, 0, err
	}
	key := data[j+1 : end-1]
	if bad := repair && !utf8.Valid(key); esc || bad {
		key = appendUnquoted(buf, key, esc, bad)
	}
	return key, v, nil
}

// memberKey reads the key and colon of an object member at data[j]; it
// returns the key's end, the value's offset and whether the key has escapes.
func memberKey(data []byte, j int) (end, v int, esc bool, err error) {
	if j >= len(data) || data[j] != '"' {
		return 0, 0, false, syntaxErr(j)
	}
	if end, esc, err = str(data, j); err != nil {
		return 0, 0, false, err
	}
	if v = scan.SkipWS(data, end); v >= len(data) || data[v] != ':' {
		return 0, 0, false, syntaxErr(v)
	}
	if v = scan.SkipWS(data, v+1); v >= len(data) {
		return 0, 0, false, syntaxErr(v)
	}
	return end, v, esc, nil
}

// match finds the field of key: exact name first, then case-insensitive as
// encoding/json does.
func match(fields []Field, key []byte) *Field {
	for k := range fields {
		if fields[k].Name == string(key) {
			return &fields[k]
		}
	}
	var buf [64]byte
	folded := appendFolded(buf[:0], key)
	for k := range fields {
		if string(fields[k].fold) == string(folded) {
			return &fields[k]
		}
	}
	return nil
}

// appendFolded is encoding/json's appendFoldedName.
func appendFolded(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return out
}

// Match returns the field of fields that the object member key (unescaped)
// fills, as a struct decoder matches it (exact name, then folded case),
// or nil: what strict params (dispatch's Method.StrictParams) refuse.
func Match(fields []Field, key []byte) *Field { return match(fields, key) }
