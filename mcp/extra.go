package mcp

// NOTE: the methods beyond tools, resources and prompts: logging/setLevel
// (logging.go), completion/complete (complete.go), resources/templates/list
// (template.go), resources/subscribe and unsubscribe (subscribe.go), and
// the capabilities they declare.

import (
	"strconv"
	"sync"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// serverExt is the Server's state for those methods.
type serverExt struct {
	logging   bool // EnableLogging
	completer Completer
	templates []*ResourceTemplate

	subMu sync.Mutex
	subs  map[string]map[*session]*dispatch.Peer // by URI: the sessions subscribed and how to reach them

	ownKey ownKey // signs the requestState of calls outside HTTP (inputrequired_state.go)
}

// builtExt holds the answers of those methods built once.
type builtExt struct {
	templates [2][]byte // resources/templates/list: [0] initialize-based, [1] Modern
}

func (s *Server) registerExtra() {
	for _, m := range []dispatch.Method{
		{Name: "logging/setLevel", Handler: dispatch.HandlerFunc(s.setLevel), Inline: true},              // the lowest level of log messages to send
		{Name: "completion/complete", Handler: dispatch.HandlerFunc(s.complete), Inline: true},           // complete an argument
		{Name: "resources/templates/list", Handler: dispatch.HandlerFunc(s.templatesList), Inline: true}, // list the resource templates
		{Name: "resources/subscribe", Handler: dispatch.HandlerFunc(s.subscribe), Inline: true},          // be notified of a resource's changes
		{Name: "resources/unsubscribe", Handler: dispatch.HandlerFunc(s.unsubscribe), Inline: true},      // stop being notified of a resource's changes
	} {
		if err := s.e.RegisterMethod(m); err != nil {
			panic(err) // the names are fixed and valid
		}
	}
}

// knownExtra reports whether method is one of those methods.
func knownExtra(method []byte) bool {
	switch string(method) {
	case "logging/setLevel", "completion/complete", "resources/templates/list", "resources/subscribe", "resources/unsubscribe":
		return true
	}
	return false
}

func methodNotFound() error {
	return dispatch.NewError(encode.CodeMethodNotFound, "Method not found", nil)
}

// capabilities returns the server's capabilities object.
func (s *Server) capabilities() []byte {
	caps := []byte{'{'}
	if s.ext.completer != nil {
		caps = append(caps, `,"completions":{}`...)
	}
	if s.ext.logging {
		caps = append(caps, `,"logging":{}`...)
	}
	if len(s.prompts) > 0 {
		caps = append(caps, `,"prompts":{}`...)
	}
	if len(s.resources) > 0 || len(s.ext.templates) > 0 {
		caps = append(caps, `,"resources":{"subscribe":true}`...)
	}
	if len(s.tools) > 0 {
		caps = append(caps, `,"tools":{}`...)
	}
	if len(caps) > 1 {
		caps = append(caps[:1], caps[2:]...) // the first member's comma
	}
	return append(caps, '}')
}

// buildExt builds the answers of builtExt, and gives the Modern lists of
// b their caching hints.
func (s *Server) buildExt(b *built) {
	for i, modern := range []bool{false, true} {
		b.ext.templates[i] = s.appendList(resultStart(nil, modern), "resourceTemplates", len(s.ext.templates),
			func(dst []byte, i int) []byte { return s.ext.templates[i].appendDesc(dst) })
	}
	for i, l := range []*[2][]byte{&b.tools, &b.resources, &b.prompts, &b.ext.templates} {
		scope := "public"
		if s.access != nil && i < 3 { // each caller sees its own list (access.go)
			scope = "private"
		}
		l[1] = append(cacheHints(resultStart(nil, true), listTTL, scope), l[1][len(resultStart(nil, true)):]...)
	}
}

// The caching hints of 2026-07-28 (SEP-2549): a list is the same for every
// client ("public"; "private" when Options.Access filters it), a resource's contents may not be ("private"); ttlMs 0
// lets a client keep neither without asking again, since a server may
// change both at any time.
const (
	listTTL = 0
	readTTL = 0
)

// cacheHints appends "ttlMs":ttl,"cacheScope":scope, after a result's
// opening (resultStart with modern).
func cacheHints(dst []byte, ttl int, scope string) []byte {
	dst = strconv.AppendInt(append(dst, `"ttlMs":`...), int64(ttl), 10)
	return append(encode.AppendString(append(dst, `,"cacheScope":`...), scope), ',')
}
