package gen

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// initialisms are the words written in capitals in Go names.
var initialisms = map[string]bool{"id": true, "url": true, "uri": true, "http": true, "json": true,
	"api": true, "uuid": true, "rpc": true, "ip": true, "tcp": true, "html": true, "sql": true}

// words splits s at every character that is not a letter or digit, and
// before an upper-case letter that follows a lower-case one.
func words(s string) []string {
	var out []string
	var cur []rune
	var prev rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// exported turns s into an exported Go identifier: "list_pets" ->
// "ListPets", "petId" -> "PetID".
func exported(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if initialisms[strings.ToLower(w)] {
			b.WriteString(strings.ToUpper(w))
			continue
		}
		r := []rune(w)
		b.WriteString(string(unicode.ToUpper(r[0])) + string(r[1:]))
	}
	id := b.String()
	if id == "" || !unicode.IsLetter([]rune(id)[0]) {
		id = "X" + id
	}
	return id
}

// unexported turns s into an unexported Go identifier: "newPetName" ->
// "newPetName", "ID" -> "id", "rpc.discover" -> "rpcDiscover".
func unexported(s string) string {
	ws := words(s)
	if len(ws) == 0 {
		return "x"
	}
	first := []rune(ws[0])
	if initialisms[strings.ToLower(ws[0])] {
		first = []rune(strings.ToLower(ws[0]))
	}
	first[0] = unicode.ToLower(first[0])
	id := string(first)
	if len(ws) > 1 {
		id += exported(strings.Join(ws[1:], "_"))
	}
	if !unicode.IsLetter(first[0]) {
		id = "x" + id
	}
	return id
}

// scope hands out unique identifiers.
type scope map[string]bool

// take returns id, or id with a number after it, whichever is free, and
// marks it taken. Keywords and reserved names are never free.
func (s scope) take(id string) string {
	base := id
	for i := 2; s[id] || token.IsKeyword(id); i++ {
		id = base + strconv.Itoa(i)
	}
	s[id] = true
	return id
}

// localScope is a fresh scope for the params of one method: the names the
// generated code uses for itself are taken.
func localScope() scope {
	s := scope{}
	for _, id := range []string{"ctx", "c", "p", "r", "err", "srv", "e", "context", "client", "dispatch", "openrpc", "time", "json"} {
		s[id] = true
	}
	return s
}
