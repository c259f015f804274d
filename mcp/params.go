package mcp

import (
	"github.com/jetrpc/jetrpc/decode"
)

// reqParams are the members of a request's params the MCP methods and the
// HTTP endpoint read, raw (slices of the params, valid as long as they).
type reqParams struct {
	name, uri  []byte // unquoted when they had no escapes; see str
	nameEsc    bool
	uriEsc     bool
	taskID     []byte // tasks/*'s taskId, as name
	taskIDEsc  bool
	taskIDBad  bool // present, not a string
	arguments  []byte
	token      []byte // _meta.progressToken
	version    []byte // _meta["io.modelcontextprotocol/protocolVersion"], unquoted
	hasVersion bool
	hasCaps    bool // _meta["io.modelcontextprotocol/clientCapabilities"]
	versionBad bool // not a string
	requestID  []byte
	protoVer   []byte // initialize's protocolVersion, unquoted
}

const (
	metaVersion = "io.modelcontextprotocol/protocolVersion"
	metaCaps    = "io.modelcontextprotocol/clientCapabilities"
)

// parse reads params (validated JSON: an object, or absent).
func (p *reqParams) parse(params []byte) {
	*p = reqParams{}
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, "name"):
			p.name, p.nameEsc = str(v)
		case decode.KeyEquals(k, "uri"):
			p.uri, p.uriEsc = str(v)
		case decode.KeyEquals(k, "arguments"):
			p.arguments = v
		case decode.KeyEquals(k, "taskId"):
			p.taskID, p.taskIDEsc = str(v)
			p.taskIDBad = p.taskID == nil
		case decode.KeyEquals(k, "requestId"):
			p.requestID = v
		case decode.KeyEquals(k, "protocolVersion"):
			p.protoVer, _ = str(v)
		case decode.KeyEquals(k, "_meta"):
			p.meta(v)
		}
	}
}

func (p *reqParams) meta(v []byte) {
	var it decode.Iter
	if !it.Reset(v) || !it.IsObject() {
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, "progressToken"):
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
				p.token = v
			}
		case decode.KeyEquals(k, metaVersion):
			p.hasVersion = true
			var esc bool
			if p.version, esc = str(v); p.version == nil || esc {
				p.versionBad = true
			}
		case decode.KeyEquals(k, metaCaps):
			p.hasCaps = len(v) > 0 && v[0] == '{'
		}
	}
}

// str returns a JSON string's contents and whether it has escapes (then
// it is the raw quoted-less bytes; unquote with text); nil for a
// non-string.
func str(v []byte) ([]byte, bool) {
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

// text returns s (from str) unescaped, appended to dst when it had escapes.
func text(dst, s []byte, esc bool) []byte {
	if !esc {
		return s
	}
	out, err := decode.AppendUnquote(dst[:0], append(append([]byte{'"'}, s...), '"'))
	if err != nil {
		return s
	}
	return out
}
