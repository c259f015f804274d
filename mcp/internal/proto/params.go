package proto

import (
	"github.com/jetrpc/jetrpc/decode"
)

// Params are the members of a request's params the MCP methods and the
// HTTP endpoint read, raw (slices of the params, valid as long as they).
type Params struct {
	Name, URI  []byte // unquoted when they had no escapes; see Str
	NameEsc    bool
	URIEsc     bool
	TaskID     []byte // tasks/*'s taskId, as name
	TaskIDEsc  bool
	TaskIDBad  bool // present, not a string
	Arguments  []byte
	Token      []byte // _meta.progressToken
	Version    []byte // _meta["io.modelcontextprotocol/protocolVersion"], unquoted
	HasVersion bool
	HasCaps    bool // _meta["io.modelcontextprotocol/clientCapabilities"]
	VersionBad bool // not a string
	RequestID  []byte
	ProtoVer   []byte // initialize's protocolVersion, unquoted
}

// The _meta keys of the Modern revision.
const (
	MetaVersion = "io.modelcontextprotocol/protocolVersion"
	MetaCaps    = "io.modelcontextprotocol/clientCapabilities"
)

// Parse reads params (validated JSON: an object, or absent).
func (p *Params) Parse(params []byte) {
	*p = Params{}
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, "name"):
			p.Name, p.NameEsc = Str(v)
		case decode.KeyEquals(k, "uri"):
			p.URI, p.URIEsc = Str(v)
		case decode.KeyEquals(k, "arguments"):
			p.Arguments = v
		case decode.KeyEquals(k, "taskId"):
			p.TaskID, p.TaskIDEsc = Str(v)
			p.TaskIDBad = p.TaskID == nil
		case decode.KeyEquals(k, "requestId"):
			p.RequestID = v
		case decode.KeyEquals(k, "protocolVersion"):
			p.ProtoVer, _ = Str(v)
		case decode.KeyEquals(k, "_meta"):
			p.parseMeta(v)
		}
	}
}

func (p *Params) parseMeta(v []byte) {
	var it decode.Iter
	if !it.Reset(v) || !it.IsObject() {
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, "progressToken"):
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
				p.Token = v
			}
		case decode.KeyEquals(k, MetaVersion):
			p.HasVersion = true
			var esc bool
			if p.Version, esc = Str(v); p.Version == nil || esc {
				p.VersionBad = true
			}
		case decode.KeyEquals(k, MetaCaps):
			p.HasCaps = len(v) > 0 && v[0] == '{'
		}
	}
}

// Str returns a JSON string's contents and whether it has escapes (then
// it is the raw quoted-less bytes; unquote with Text); nil for a
// non-string.
func Str(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	in := v[1 : len(v)-1]
	for _, b := range in {
		if b == '\\' {
			return in, true
		}
	}
	return in, false
}

// Text returns s (from Str) unescaped, appended to dst when it had escapes.
func Text(dst, s []byte, esc bool) []byte {
	if !esc {
		return s
	}
	out, err := decode.AppendUnquote(dst[:0], append(append([]byte{'"'}, s...), '"'))
	if err != nil {
		return s
	}
	return out
}
