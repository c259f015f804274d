package openrpc

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// DiscoverMethod is the method that answers with the document.
const DiscoverMethod = "rpc.discover"

// Service is the OpenRPC document of one engine's methods, built when the
// engine freezes, and the "rpc.discover" method that answers with it.
type Service struct {
	e    *dispatch.Engine
	opts Options

	mu     sync.Mutex
	frozen bool   // the document is built: Describe fails
	doc    []byte // compact JSON, built at Freeze
	err    error
	rpc    *encode.Error // the answer when building failed

	checks map[string]*paramsCheck // Options.ValidateParams (validate.go)

	ms   []dispatch.Method // the methods registered, at Freeze
	docs sync.Map          // *dispatch.MethodSet -> *setDoc: the document of a listener's methods
}

// setDoc is the document of the methods of one MethodSet.
type setDoc struct {
	once sync.Once
	doc  []byte
	err  error
}

// Enable makes e answer "rpc.discover" with the OpenRPC document of the
// methods registered on it (see Build). The document is built once, when e
// freezes, and answered from those bytes, so a call costs what a raw
// handler appending them costs. A document that cannot be built makes
// rpc.discover answer -32603 with the reason as error.data; check
// Service.Document at start-up. With Options.ValidateParams, Enable also
// adds a middleware that checks each call's params against the document
// first. Enable fails once e is frozen.
func Enable(e *dispatch.Engine, opts *Options) (*Service, error) {
	s := &Service{e: e}
	if opts != nil {
		s.opts = opts.cloneMethods() // Describe adds to it
	}
	if err := e.OnFreeze(s.freeze); err != nil {
		return nil, err
	}
	if s.opts.ValidateParams {
		if err := e.Use(s.validate); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// freeze builds the document from the registered methods and returns the
// rpc.discover method.
func (s *Service) freeze(ms []dispatch.Method) []dispatch.Method {
	s.mu.Lock()
	s.frozen = true
	s.mu.Unlock()
	s.ms = append([]dispatch.Method(nil), ms...)
	d, err := Describe(ms, &s.opts)
	var doc []byte
	if err == nil {
		doc, err = json.Marshal(d)
	}
	if err == nil && s.opts.ValidateParams {
		s.checks = compileChecks(d)
	}
	s.mu.Lock()
	s.doc, s.err = doc, err
	if err != nil {
		s.rpc = dispatch.NewError(encode.CodeInternalError, "", encode.AppendString(nil, err.Error()))
	}
	s.mu.Unlock()
	// rpc.discover returns the OpenRPC document of this service (it is not
	// in the document: the engine's own methods are not).
	return []dispatch.Method{{Name: DiscoverMethod, Handler: dispatch.HandlerFunc(s.serve), Inline: true}}
}

func (s *Service) serve(ctx context.Context, _, dst []byte) ([]byte, error) {
	if s.rpc != nil {
		return dst, s.rpc
	}
	if set := dispatch.MethodSetOf(ctx); set != nil { // a listener serving some methods only
		doc, err := s.DocumentFor(set)
		if err != nil {
			return dst, dispatch.NewError(encode.CodeInternalError, "", encode.AppendString(nil, err.Error()))
		}
		return append(dst, doc...), nil
	}
	return append(dst, s.doc...), nil
}

// DocumentFor returns the document of the methods set serves (all for
// nil), what rpc.discover answers on a listener that serves set (see
// dispatch.MethodSet); it is built on first use and kept. jetrpc serve
// answers GET /openrpc.json with it.
func (s *Service) DocumentFor(set *dispatch.MethodSet) ([]byte, error) {
	if set == nil {
		return s.Document()
	}
	s.e.Freeze()
	v, _ := s.docs.LoadOrStore(set, new(setDoc))
	sd := v.(*setDoc)
	sd.once.Do(func() {
		var ms []dispatch.Method
		for _, m := range s.ms {
			if set.Has(m.Name) {
				ms = append(ms, m)
			}
		}
		d, err := Describe(ms, &s.opts)
		if err == nil {
			sd.doc, err = json.Marshal(d)
		}
		sd.err = err
	})
	return sd.doc, sd.err
}

// Document returns the document (compact JSON; do not modify it),
// freezing the engine if it is not frozen yet, or the reason it could not
// be built.
func (s *Service) Document() ([]byte, error) {
	s.e.Freeze()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc, s.err
}
