package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

// Implementation names a server (serverInfo in initialize's result).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Options configures a Server. A nil *Options means the defaults.
type Options struct {
	// Instructions are the server's hint to the model (initialize's and
	// server/discover's instructions), if any.
	Instructions string
	// Engine configures the dispatch.Engine the methods run on (nil: its
	// defaults; Codes nil: EngineCodes).
	Engine *dispatch.Options
	// Logger receives what goes wrong (default slog.Default()).
	Logger *slog.Logger
	// Access, when set, decides which tools, resources and prompts each
	// caller may see (in tools/list, resources/list, prompts/list) and use
	// (a tools/call, resources/read or prompts/get of anything else is
	// -32007 Forbidden; over Streamable HTTP, 403 with the step-up
	// challenge: see mcphttp.Options). *oauth.ScopeRules is one. Nil:
	// everyone may use everything.
	Access Access
}

// Registration errors.
var (
	ErrFrozen    = errors.New("mcp: the server is serving: add tools, resources and prompts before")
	ErrDuplicate = errors.New("mcp: a tool, resource or prompt of that name is already added")
	ErrNoName    = errors.New("mcp: a tool, resource or prompt needs a name and a handler")
)

// Server is an MCP server: its tools, resources and prompts, and the
// dispatch.Engine that serves the MCP methods over them. Add everything
// before serving; then it is safe for concurrent use.
type Server struct {
	info  Implementation
	instr string
	log   *slog.Logger
	e     *dispatch.Engine
	// access is Options.Access (nil: none).
	access Access

	mu        sync.Mutex
	frozen    bool
	tools     []*Tool
	toolIdx   map[string]*Tool
	resources []*Resource
	resIdx    map[string]*Resource
	prompts   []*Prompt
	promptIdx map[string]*Prompt
	ext       serverExt // templates, completions, subscriptions (extra.go)
	listen    listeners // subscriptions/listen streams (listen.go)
	tasks     taskStore // the tasks of RunTask (task.go)

	once  sync.Once
	built built // the answers built once, when the server freezes

	calls sync.Pool // *call
}

// built holds the parts of answers that do not change once serving.
type built struct {
	caps      []byte    // the capabilities object
	info      []byte    // the serverInfo object
	tools     [2][]byte // tools/list's result: [0] initialize-based, [1] Modern
	resources [2][]byte
	prompts   [2][]byte
	discover  []byte
	initTail  []byte // initialize's result after protocolVersion
	marked    bool   // a tool has x-mcp-header marks (paramheader.go)
	ext       builtExt
}

// New returns a Server named by info, with the MCP methods registered on
// an engine of its own.
func New(info Implementation, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	s := &Server{info: info, instr: opts.Instructions, log: opts.Logger, access: opts.Access,
		toolIdx: map[string]*Tool{}, resIdx: map[string]*Resource{}, promptIdx: map[string]*Prompt{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.calls.New = func() any { return new(call) }
	var eo dispatch.Options
	if opts.Engine != nil {
		eo = *opts.Engine
	}
	if eo.Codes == nil { // the engine's conditions must not read as MCP's errors
		eo.Codes = EngineCodes()
	}
	s.e = dispatch.New(&eo)
	s.register()
	return s
}

// Engine returns the engine that serves the MCP methods (for a netserver
// of one's own: see ConnContext).
func (s *Server) Engine() *dispatch.Engine { return s.e }

// Close ends the engine: running calls are cancelled, and so are running
// tasks (RunTask).
func (s *Server) Close() {
	s.e.Close()
	s.tasks.cancelAll()
}

// AddTool adds t. It fails for a tool without a name or handler, a name
// added before, a tool whose schema could not be made or has an invalid
// x-mcp-header mark (see Tool.InputSchema), or once serving.
func (s *Server) AddTool(t *Tool) error {
	if t == nil || t.Name == "" || t.serve == nil {
		return ErrNoName
	}
	if t.err != nil {
		return t.err
	}
	if err := t.readHeaders(); err != nil {
		return err
	}
	return add(s, &s.tools, s.toolIdx, t.Name, t)
}

// AddResource adds r (see AddTool for the errors).
func (s *Server) AddResource(r *Resource) error {
	if r == nil || r.URI == "" || r.Name == "" || r.Read == nil {
		return ErrNoName
	}
	return add(s, &s.resources, s.resIdx, r.URI, r)
}

// AddPrompt adds p (see AddTool for the errors).
func (s *Server) AddPrompt(p *Prompt) error {
	if p == nil || p.Name == "" || p.Get == nil {
		return ErrNoName
	}
	return add(s, &s.prompts, s.promptIdx, p.Name, p)
}

// add appends v to list and indexes it by key, unless the server is frozen
// or key is taken.
func add[T any](s *Server, list *[]*T, idx map[string]*T, key string, v *T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.frozen:
		return ErrFrozen
	case idx[key] != nil:
		return ErrDuplicate
	}
	*list = append(*list, v)
	idx[key] = v
	return nil
}

// freeze ends registration and builds the answers that do not change.
func (s *Server) freeze() *built {
	s.once.Do(func() {
		s.mu.Lock()
		s.frozen = true
		s.mu.Unlock()
		s.e.Freeze()
		s.build()
	})
	return &s.built
}

func (s *Server) build() {
	b := &s.built
	b.caps = s.capabilities()
	for _, t := range s.tools {
		b.marked = b.marked || len(t.headers) > 0
	}
	b.info, _ = json.Marshal(s.info)
	for i, modern := range []bool{false, true} {
		b.tools[i] = s.appendList(resultStart(nil, modern), "tools", len(s.tools), func(dst []byte, i int) []byte { return s.tools[i].appendDesc(dst) })
		b.resources[i] = s.appendList(resultStart(nil, modern), "resources", len(s.resources), func(dst []byte, i int) []byte { return s.resources[i].appendDesc(dst) })
		b.prompts[i] = s.appendList(resultStart(nil, modern), "prompts", len(s.prompts), func(dst []byte, i int) []byte { return s.prompts[i].appendDesc(dst) })
	}
	d := append(cacheHints(resultStart(nil, true), listTTL, "public"), `"supportedVersions":`+proto.SupportedJSON+`,"capabilities":`...)
	d = append(d, s.taskCaps(s.modernCaps(b.caps))...)
	d = append(append(d, `,"_meta":{"io.modelcontextprotocol/serverInfo":`...), b.info...)
	d = append(d, '}')
	d = s.appendInstructions(d)
	b.discover = append(d, '}')
	t := append([]byte(`,"capabilities":`), b.caps...)
	t = append(append(t, `,"serverInfo":`...), b.info...)
	b.initTail = append(s.appendInstructions(t), '}')
	s.buildExt(b)
}

func (s *Server) appendInstructions(dst []byte) []byte {
	if s.instr == "" {
		return dst
	}
	return encode.AppendString(append(dst, `,"instructions":`...), s.instr)
}

// appendList appends "name":[each] and closes the result object.
func (s *Server) appendList(dst []byte, name string, n int, each func(dst []byte, i int) []byte) []byte {
	dst = append(encode.AppendString(dst, name), ":["...)
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = each(dst, i)
	}
	return append(dst, "]}"...)
}

// resultStart opens a result object: with "resultType":"complete" and a
// comma for Modern, bare otherwise (so a member must follow).
func resultStart(dst []byte, modern bool) []byte {
	if modern {
		return append(dst, `{"resultType":"complete",`...)
	}
	return append(dst, '{')
}

// emptyResult appends ping's result: {} or the Modern one.
func emptyResult(dst []byte, modern bool) []byte {
	if modern {
		return append(dst, `{"resultType":"complete"}`...)
	}
	return append(dst, "{}"...)
}

// baseContext is the context of calls made outside any transport.
func (s *Server) baseContext() context.Context { return s.e.Context() }
