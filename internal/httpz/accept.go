package httpz

// Encoding is an HTTP content coding that this package writes or reads.
type Encoding uint8

// The content codings.
const (
	Identity Encoding = iota // none
	Gzip                     // gzip (RFC 1952)
	Deflate                  // deflate: zlib (RFC 1950) around deflate (RFC 1951)
)

// String is the coding's token as it appears in Content-Encoding.
func (e Encoding) String() string {
	switch e {
	case Gzip:
		return "gzip"
	case Deflate:
		return "deflate"
	}
	return "identity"
}

// Negotiate returns the coding to answer a request whose Accept-Encoding
// value is accept (RFC 9110 section 12.5.3): gzip or deflate, whichever has
// the higher weight (gzip on a tie), unless neither is acceptable or
// identity weighs strictly more. Tokens and parameters are compared without
// regard to case; "x-gzip" is gzip; "*" stands for every coding not named;
// q=0 refuses a coding; an element with a malformed weight is ignored.
// An empty value (or none) gives Identity. It does not allocate.
func Negotiate[T string | []byte](accept T) Encoding {
	gz, df, id, star := -1, -1, -1, -1 // weights in thousandths; -1: not named
	for i := 0; i < len(accept); {
		// One element: token *( OWS ";" OWS name=value ) up to a ",".
		i = skipOWS(accept, i)
		start := i
		for i < len(accept) && accept[i] != ',' && accept[i] != ';' && !isOWS(accept[i]) {
			i++
		}
		tok := accept[start:i]
		q, ok := 1000, true
		for i = skipOWS(accept, i); i < len(accept) && accept[i] == ';'; i = skipOWS(accept, i) {
			i = skipOWS(accept, i+1)
			ns := i
			for i < len(accept) && accept[i] != '=' && accept[i] != ',' && accept[i] != ';' && !isOWS(accept[i]) {
				i++
			}
			name := accept[ns:i]
			i = skipOWS(accept, i)
			if i >= len(accept) || accept[i] != '=' {
				ok = false // a parameter without a value
				continue
			}
			i = skipOWS(accept, i+1)
			vs := i
			for i < len(accept) && accept[i] != ',' && accept[i] != ';' && !isOWS(accept[i]) {
				i++
			}
			if len(name) == 1 && name[0]|0x20 == 'q' {
				q, ok = parseQ(accept[vs:i])
			}
		}
		if i < len(accept) && accept[i] != ',' { // junk after the element
			ok = false
			for i < len(accept) && accept[i] != ',' {
				i++
			}
		}
		i++ // past the ","
		if !ok || len(tok) == 0 {
			continue
		}
		switch {
		case equalFold(tok, "gzip"), equalFold(tok, "x-gzip"):
			gz = q
		case equalFold(tok, "deflate"):
			df = q
		case equalFold(tok, "identity"):
			id = q
		case len(tok) == 1 && tok[0] == '*':
			star = q
		}
	}
	if gz < 0 {
		gz = max(star, 0)
	}
	if df < 0 {
		df = max(star, 0)
	}
	if id < 0 {
		id = 1 // acceptable, unless refused by name: least preferred
	}
	best, enc := gz, Gzip
	if df > gz {
		best, enc = df, Deflate
	}
	if best <= 0 || id > best {
		return Identity
	}
	return enc
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

func skipOWS[T string | []byte](s T, i int) int {
	for i < len(s) && isOWS(s[i]) {
		i++
	}
	return i
}

// parseQ parses a qvalue ("0", "0.5", "1.000"; RFC 9110 section 12.4.2) in
// thousandths.
func parseQ[T string | []byte](v T) (int, bool) {
	if len(v) == 0 || len(v) > 5 || v[0] != '0' && v[0] != '1' {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' {
		return 0, false
	}
	scale := 100
	for i := 2; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	return q, q <= 1000
}

// equalFold reports whether b is the lower-case ASCII token s, ignoring
// case.
func equalFold[T string | []byte](b T, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
