package mcp

// NOTE: the MCP methods, as raw handlers of the Server's engine. Each reads
// the members of params it needs in place (internal/proto) and appends its
// result with the shape of the revision the request is served as. The
// answers that do not change while serving are built once (server.go).

import (
	"context"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

// MCP's error codes (besides JSON-RPC's).
const (
	CodeResourceNotFound           encode.Code = -32002 // initialize-based revisions
	CodeHeaderMismatch             encode.Code = -32020
	CodeMissingRequiredCapability  encode.Code = -32021
	CodeUnsupportedProtocolVersion encode.Code = -32022
)

// EngineCodes returns the codes an MCP endpoint answers the engine's own
// conditions with (dispatch.Options.Codes; New uses them unless
// Options.Engine sets Codes). MCP leaves -32000..-32019 to implementations
// and reserves -32002 and -32020..-32099 (schema 2026-07-28), so they stay
// in -32000..-32019: Timeout -32001 (RequestTimeout of the TypeScript and
// Python SDKs), ShuttingDown -32004 (what the Go SDK answers while its
// server closes), Overloaded -32011 and ResponseTooLarge -32010 (the
// engine's -32001 and -32000 mean a timeout and a closed connection to the
// SDKs); LimitExceeded -32005, Unauthorized -32006 and Forbidden -32007 as
// on plain JSON-RPC. docs/errors.md has the whole table.
func EngineCodes() *dispatch.Codes {
	return &dispatch.Codes{Overloaded: -32011, ShuttingDown: -32004, Timeout: -32001, ResponseTooLarge: -32010}
}

func (s *Server) register() {
	for _, m := range []dispatch.Method{
		{Name: "initialize", Handler: dispatch.HandlerFunc(s.initialize), Inline: true},           // start a session (initialize-based revisions)
		{Name: "ping", Handler: dispatch.HandlerFunc(s.ping), Inline: true},                       // ping
		{Name: "server/discover", Handler: dispatch.HandlerFunc(s.discover), Inline: true},        // the server's revisions, capabilities and identity
		{Name: "tools/list", Handler: dispatch.HandlerFunc(s.toolsList), Inline: true},            // list the tools
		{Name: "tools/call", Handler: dispatch.HandlerFunc(s.toolsCall), CallsPeer: true},         // call a tool
		{Name: "resources/list", Handler: dispatch.HandlerFunc(s.resourcesList), Inline: true},    // list the resources
		{Name: "resources/read", Handler: dispatch.HandlerFunc(s.resourcesRead), CallsPeer: true}, // read a resource
		{Name: "prompts/list", Handler: dispatch.HandlerFunc(s.promptsList), Inline: true},        // list the prompts
		{Name: "prompts/get", Handler: dispatch.HandlerFunc(s.promptsGet), CallsPeer: true},       // get a prompt
		{Name: "notifications/initialized", Handler: dispatch.HandlerFunc(s.initialized), Inline: true, Concurrent: true},
		{Name: "notifications/cancelled", Handler: dispatch.HandlerFunc(s.cancelled), Inline: true, Concurrent: true},
	} {
		if err := s.e.RegisterMethod(m); err != nil {
			panic(err) // the names are fixed and valid
		}
	}
	s.registerExtra()
	s.registerListen()
	s.registerTasks()
}

// knownMethod reports whether the server answers method (for the HTTP
// endpoint's 404 of an unknown Modern method).
func knownMethod(method []byte) bool {
	switch string(method) {
	case "initialize", "ping", "server/discover", "tools/list", "tools/call", "resources/list",
		"resources/read", "prompts/list", "prompts/get":
		return true
	}
	return knownExtra(method) || taskMethod(method)
}

// begin returns the call of a request: the HTTP endpoint's, or one made
// here on a stream transport (own: release it with end), whose revision
// the params' _meta decides. It fails for a Modern request whose
// metadata is wrong.
func (s *Server) begin(ctx context.Context, params []byte, p *proto.Params) (c *call, own bool, err error) {
	p.Parse(params)
	s.freeze()
	if c = callOf(ctx); c != nil {
		return c, false, c.modernCheck(ctx, params)
	}
	c = s.getCall(ctx)
	c.sess = sessionOf(ctx)
	if p.HasVersion {
		c.modern, c.version = true, Modern
		if err = checkModern(p); err == nil {
			err = c.modernCheck(ctx, params)
		}
	} else {
		c.version = c.sess.versionOr(Latest)
	}
	return c, true, err
}

func (s *Server) end(c *call, own bool) {
	if own {
		s.putCall(c)
	}
}

// checkModern checks a Modern request's metadata.
func checkModern(p *proto.Params) error {
	switch {
	case p.VersionBad || string(p.Version) != Modern:
		return unsupportedVersion(p.Version)
	case !p.HasCaps:
		return dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
			[]byte(`"_meta[\"`+proto.MetaCaps+`\"] is required"`))
	}
	return nil
}

// unsupportedVersion is UnsupportedProtocolVersionError for requested.
func unsupportedVersion(requested []byte) error {
	data := append([]byte(`{"supported":`+proto.SupportedJSON+`,"requested":`), encode.AppendStringBytes(nil, requested)...)
	return dispatch.NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version", append(data, '}'))
}

func (s *Server) initialize(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if c.modern {
		return dst, err // removed in 2026-07-28
	}
	v := proto.Negotiate(p.ProtoVer)
	c.version, c.modern = v, false
	if c.sess != nil {
		c.sess.setVersion(v)
	}
	dst = append(append(append(dst, `{"protocolVersion":"`...), v...), '"')
	return append(dst, s.built.initTail...), nil
}

func (s *Server) ping(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	return emptyResult(dst, c.modern), nil
}

func (s *Server) discover(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, _ := s.begin(ctx, params, &p) // answered whatever the revision: it is the probe
	s.end(c, own)
	return append(dst, s.built.discover...), nil
}

// list answers one of the list methods from its built bytes.
func (s *Server) list(ctx context.Context, params, dst []byte, lists *[2][]byte, kind int) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	built := lists[0]
	if c.modern {
		built = lists[1]
	}
	if s.access != nil && kind != listUnfiltered { // only what the caller may use (access.go)
		return s.appendAllowed(c, dst, kind, c.modern, built), nil
	}
	return append(dst, built...), nil
}

func (s *Server) toolsList(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.list(ctx, params, dst, &s.freeze().tools, listTools)
}

func (s *Server) resourcesList(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.list(ctx, params, dst, &s.freeze().resources, listResources)
}

func (s *Server) promptsList(ctx context.Context, params, dst []byte) ([]byte, error) {
	return s.list(ctx, params, dst, &s.freeze().prompts, listPrompts)
}

func invalidParams(text string) error {
	return dispatch.NewError(encode.CodeInvalidParams, text, nil)
}

func (s *Server) toolsCall(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	name := proto.Text(c.scratch, p.Name, p.NameEsc)
	t := s.toolIdx[string(name)]
	if t == nil {
		if p.Name == nil {
			return dst, invalidParams("tools/call needs the name of a tool")
		}
		return dst, invalidParams("Unknown tool: " + string(name))
	}
	if !s.allowed(c, t.Name) {
		return dst, forbidden(t.Name, s.access.Needed(t.Name))
	}
	c.setToken(p.Token)
	c.setID(dispatch.RequestID(ctx))
	if c.sess != nil && !c.inline() && len(c.id) > 0 {
		c.sess.calls.add(c)
		defer c.sess.calls.remove(c)
	}
	if t.Tasks != TaskForbidden {
		c.taskOK = c.modern && hasExtension(c.meta.caps, ExtensionTasks)
		c.taskReq = t.Tasks == TaskRequired
		if c.taskReq && !c.taskOK {
			return dst, c.failed(missingTasks())
		}
	}
	start := len(dst)
	c.input.begin("tools/call", params, start)
	dst, err = t.serve(c, p.Arguments, dst)
	switch {
	case c.input.asked():
		return c.input.answer(dst)
	case c.task != nil:
		return c.task.appendCreated(dst[:start]), nil
	}
	return dst, c.failed(err)
}

func (s *Server) resourcesRead(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	uri := string(proto.Text(c.scratch, p.URI, p.URIEsc))
	if p.URI != nil && !s.allowed(c, uri) {
		return dst, forbidden(uri, s.access.Needed(uri))
	}
	var read func(ctx context.Context, uri string) ([]ResourceContents, error)
	if r := s.resIdx[uri]; r != nil {
		read = r.Read
	} else {
		read = s.templateRead(uri)
	}
	if read == nil {
		if p.URI == nil {
			return dst, invalidParams("resources/read needs a uri")
		}
		data := encode.AppendString([]byte(`{"uri":`), uri)
		code := CodeResourceNotFound
		if c.modern {
			code = encode.CodeInvalidParams
		}
		return dst, dispatch.NewError(code, "Resource not found", append(data, '}'))
	}
	c.setID(dispatch.RequestID(ctx))
	if c.sess != nil && !c.inline() && len(c.id) > 0 {
		c.sess.calls.add(c)
		defer c.sess.calls.remove(c)
	}
	c.input.begin("resources/read", params, len(dst))
	contents, err := read(c, uri)
	if c.input.asked() {
		return c.input.answer(dst)
	}
	if err != nil {
		return dst, c.failed(err)
	}
	dst = resultStart(dst, c.modern)
	if c.modern {
		dst = cacheHints(dst, readTTL, "private")
	}
	dst = append(dst, `"contents":[`...)
	for i := range contents {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = contents[i].appendTo(dst)
	}
	return append(dst, "]}"...), nil
}

func (s *Server) promptsGet(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	name := proto.Text(c.scratch, p.Name, p.NameEsc)
	pr := s.promptIdx[string(name)]
	if pr == nil {
		return dst, invalidParams("Unknown prompt: " + string(name))
	}
	if !s.allowed(c, pr.Name) {
		return dst, forbidden(pr.Name, s.access.Needed(pr.Name))
	}
	args, err := promptArgs(p.Arguments)
	if err != nil {
		return dst, err
	}
	for _, a := range pr.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return dst, invalidParams("missing required argument: " + a.Name)
		}
	}
	c.setID(dispatch.RequestID(ctx))
	if c.sess != nil && !c.inline() && len(c.id) > 0 {
		c.sess.calls.add(c)
		defer c.sess.calls.remove(c)
	}
	c.input.begin("prompts/get", params, len(dst))
	res, err := pr.Get(c, args)
	if c.input.asked() {
		return c.input.answer(dst)
	}
	if err != nil {
		return dst, c.failed(err)
	}
	if res == nil {
		res = &PromptResult{}
	}
	return res.appendTo(dst, c.modern), nil
}

// promptArgs reads prompts/get's arguments, an object of strings.
func promptArgs(raw []byte) (map[string]string, error) {
	args := map[string]string{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	bad := invalidParams("prompt arguments are an object of strings")
	var it decode.Iter
	if !it.Reset(raw) || !it.IsObject() {
		return nil, bad
	}
	for it.Next() {
		k, err := decode.AppendUnquote(nil, append(append([]byte{'"'}, it.Key()...), '"'))
		v := it.Value()
		if err != nil || len(v) == 0 || v[0] != '"' {
			return nil, bad
		}
		vs, err := decode.AppendUnquote(nil, v)
		if err != nil {
			return nil, bad
		}
		args[string(k)] = string(vs)
	}
	return args, nil
}

func (s *Server) initialized(ctx context.Context, _, dst []byte) ([]byte, error) {
	if sess := sessionOf(ctx); sess != nil {
		sess.initialized.Store(true)
	}
	return dst, nil
}

func (s *Server) cancelled(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	p.Parse(params)
	if sess := sessionOf(ctx); sess != nil && p.RequestID != nil {
		sess.calls.cancel(p.RequestID)
	}
	return dst, nil
}
