package ws

// NOTE: permessage-deflate's negotiation (RFC 7692 section 5 and 7.1).
// The Sec-WebSocket-Extensions grammar (RFC 6455 section 9.1) is a list of
// extensions separated by commas, each a token followed by parameters
// separated by semicolons, each a token with an optional value (a token or
// a quoted string). eachExtension cuts a header into extensions and
// parseDeflate reads permessage-deflate's parameters; a server declines a
// malformed offer and tries the next (section 5), a client fails the
// connection on a malformed answer (section 7.1). The negotiation runs
// once per connection: it may allocate.

import (
	"errors"
	"strings"
)

// DeflateName is the extension token of permessage-deflate.
const DeflateName = "permessage-deflate"

// Deflate holds the parameters of permessage-deflate (RFC 7692 section
// 7.1): those of an offer, an answer or the agreement that both make.
//
// A window size is given in bits, 8 to 15 (a window of 256 bytes to 32
// KiB); 0 means the parameter is absent, which is 15 when it comes to
// compressing. In a client's offer, ClientMaxWindowBits 15 stands for the
// parameter with or without a value: either lets the server answer with a
// smaller one.
type Deflate struct {
	// ServerNoContextTakeover: the server compresses each message on its
	// own, so the client keeps no window between messages.
	ServerNoContextTakeover bool
	// ClientNoContextTakeover: the client compresses each message on its
	// own.
	ClientNoContextTakeover bool
	// ServerMaxWindowBits limits the server's compression window.
	ServerMaxWindowBits int
	// ClientMaxWindowBits limits the client's compression window.
	ClientMaxWindowBits int
}

// Errors of the negotiation.
var (
	// ErrExtension is a malformed Sec-WebSocket-Extensions header, or a
	// parameter permessage-deflate does not define, repeats or gives a
	// bad value. A server declines such an offer; a client fails the
	// connection on such an answer.
	ErrExtension = errors.New("ws: malformed permessage-deflate parameters")
	// ErrExtensionAnswer is a server's answer that does not match the
	// client's offer: an extension not offered, two of them, or a
	// parameter the offer did not allow (RFC 7692 section 7.1).
	ErrExtensionAnswer = errors.New("ws: server's permessage-deflate answer does not match the offer")
)

// AcceptDeflate returns what a server agrees to, as pref says, for the
// first acceptable permessage-deflate offer in header, the value of the
// client's Sec-WebSocket-Extensions headers (several joined with commas);
// ok is false when there is none. Malformed offers are declined (RFC 7692
// section 5) and the next is tried.
//
// pref is the server's side: its NoContextTakeover fields are asked of
// the peers whatever they offer (a server may always say
// server_no_context_takeover and client_no_context_takeover), its window
// sizes are the largest it uses and, when the offer allows it (a
// client_max_window_bits parameter), lets the client use. The agreement
// answers the client's requests: the smaller server window it asked for,
// the no-context-takeover it asked for.
func AcceptDeflate(header string, pref Deflate) (agreed Deflate, ok bool) {
	eachExtension(header, func(name, params string) bool {
		if !strings.EqualFold(name, DeflateName) {
			return true
		}
		o, err := parseDeflate(params, true)
		if err != nil {
			return true // declined (section 5); try the next offer
		}
		agreed, ok = accept(o, pref), true
		return false
	})
	return agreed, ok
}

// accept is the server's answer to the offer o, given its preferences.
func accept(o, pref Deflate) Deflate {
	a := Deflate{
		ServerNoContextTakeover: o.ServerNoContextTakeover || pref.ServerNoContextTakeover,
		ClientNoContextTakeover: o.ClientNoContextTakeover || pref.ClientNoContextTakeover,
	}
	sw := windowBits(pref.ServerMaxWindowBits)
	switch {
	case o.ServerMaxWindowBits != 0:
		a.ServerMaxWindowBits = min(o.ServerMaxWindowBits, sw) // must be answered (7.1.2.1)
	case sw < 15:
		a.ServerMaxWindowBits = sw
	}
	if cw := windowBits(pref.ClientMaxWindowBits); o.ClientMaxWindowBits != 0 && cw < 15 {
		a.ClientMaxWindowBits = min(o.ClientMaxWindowBits, cw)
	}
	return a
}

// windowBits is a window size in bits, 15 for 0 or a bad value.
func windowBits(b int) int {
	if b < 8 || b > 15 {
		return 15
	}
	return b
}

// AppendDeflate appends d as the value of a Sec-WebSocket-Extensions
// header to dst: an offer (a client's) or an answer (a server's). In an
// offer, ClientMaxWindowBits 15 is the parameter without a value.
func AppendDeflate(dst []byte, d Deflate, offer bool) []byte {
	dst = append(dst, DeflateName...)
	if d.ServerNoContextTakeover {
		dst = append(dst, "; server_no_context_takeover"...)
	}
	if d.ClientNoContextTakeover {
		dst = append(dst, "; client_no_context_takeover"...)
	}
	if d.ServerMaxWindowBits != 0 {
		dst = appendBits(append(dst, "; server_max_window_bits="...), d.ServerMaxWindowBits)
	}
	switch {
	case d.ClientMaxWindowBits == 15 && offer:
		dst = append(dst, "; client_max_window_bits"...)
	case d.ClientMaxWindowBits != 0:
		dst = appendBits(append(dst, "; client_max_window_bits="...), d.ClientMaxWindowBits)
	}
	return dst
}

func appendBits(dst []byte, b int) []byte {
	if b >= 10 {
		dst = append(dst, '1')
	}
	return append(dst, byte('0'+b%10))
}

// ParseDeflateAnswer checks the server's Sec-WebSocket-Extensions header
// (several joined with commas; empty: none) against the client's offer and
// returns the agreement; ok is false when the server declined. An answer
// that is malformed (ErrExtension) or does not fit the offer
// (ErrExtensionAnswer) is an error: the client fails the connection.
func ParseDeflateAnswer(header string, offer Deflate) (agreed Deflate, ok bool, err error) {
	eachExtension(header, func(name, params string) bool {
		switch {
		case !strings.EqualFold(name, DeflateName), ok:
			err = ErrExtensionAnswer // not offered, or twice
		default:
			agreed, err = parseDeflate(params, false)
			ok = true
		}
		return err == nil
	})
	switch {
	case err == nil && ok:
		err = checkAnswer(agreed, offer)
	case err == nil && strings.TrimSpace(strings.ReplaceAll(header, ",", "")) != "":
		err = ErrExtension // a list of nothing but commas is not a list
	}
	if err != nil {
		return Deflate{}, false, err
	}
	return agreed, ok, nil
}

// checkAnswer checks an answer a against the offer o (RFC 7692 sections
// 7.1.1 and 7.1.2).
func checkAnswer(a, o Deflate) error {
	switch {
	case o.ServerNoContextTakeover && !a.ServerNoContextTakeover,
		o.ServerMaxWindowBits != 0 && (a.ServerMaxWindowBits == 0 || a.ServerMaxWindowBits > o.ServerMaxWindowBits),
		a.ClientMaxWindowBits != 0 && (o.ClientMaxWindowBits == 0 || a.ClientMaxWindowBits > o.ClientMaxWindowBits):
		return ErrExtensionAnswer
	}
	return nil
}

// eachExtension calls f with the name and the parameters (the text after
// the first semicolon) of each extension in header until f returns false.
// Empty elements of the list are skipped (RFC 9110 section 5.6.1).
func eachExtension(header string, f func(name, params string) bool) {
	for header != "" {
		ext, rest := cutList(header, ',')
		header = rest
		name, params, _ := strings.Cut(ext, ";")
		name = strings.TrimSpace(name)
		if name == "" && strings.TrimSpace(params) == "" {
			continue
		}
		if !f(name, params) {
			return
		}
	}
}

// cutList cuts s around the first sep outside a quoted string.
func cutList(s string, sep byte) (before, after string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// Bits of the parameters seen, to refuse one given twice.
const (
	seenSNCT = 1 << iota
	seenCNCT
	seenSMWB
	seenCMWB
)

// parseDeflate reads permessage-deflate's parameters, "p1; p2=v; ..."
// (empty: none), of an offer (a client's) or an answer (a server's).
func parseDeflate(params string, offer bool) (d Deflate, err error) {
	var seen int
	for params != "" {
		var p string
		p, params = cutList(params, ';')
		name, value, hasValue := strings.Cut(p, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if hasValue {
			if value, err = unquote(value); err != nil {
				return Deflate{}, err
			}
		}
		bit := 0
		switch strings.ToLower(name) {
		case "server_no_context_takeover":
			bit, d.ServerNoContextTakeover = seenSNCT, true
			err = noValue(hasValue)
		case "client_no_context_takeover":
			bit, d.ClientNoContextTakeover = seenCNCT, true
			err = noValue(hasValue)
		case "server_max_window_bits":
			bit = seenSMWB
			d.ServerMaxWindowBits, err = parseBits(value, hasValue)
		case "client_max_window_bits":
			bit = seenCMWB
			if !hasValue && offer { // "the client supports it"
				d.ClientMaxWindowBits = 15
				break
			}
			d.ClientMaxWindowBits, err = parseBits(value, hasValue)
		default:
			return Deflate{}, ErrExtension
		}
		if err != nil || seen&bit != 0 {
			return Deflate{}, ErrExtension
		}
		seen |= bit
	}
	return d, nil
}

func noValue(hasValue bool) error {
	if hasValue {
		return ErrExtension
	}
	return nil
}

// parseBits parses a window size: 8 to 15, digits only, no leading zero
// (RFC 7692 section 7.1.2).
func parseBits(v string, hasValue bool) (int, error) {
	switch {
	case !hasValue:
	case len(v) == 1 && v[0] >= '8' && v[0] <= '9':
		return int(v[0] - '0'), nil
	case len(v) == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5':
		return 10 + int(v[1]-'0'), nil
	}
	return 0, ErrExtension
}

// unquote returns a parameter's value: a token, or a quoted string
// (RFC 6455 section 9.1 requires its content to be a token too).
func unquote(v string) (string, error) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if v == "" || strings.ContainsAny(v, "\"\\ \t,;=") {
		return "", ErrExtension
	}
	return v, nil
}
