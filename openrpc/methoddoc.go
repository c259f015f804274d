package openrpc

// NOTE: what a method says about itself beyond its Go types. The engine
// never reads it, so it is given here, to the document, under the method's
// name (Options.Methods, Service.Describe), and not carried by
// dispatch.Method.

import (
	"maps"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// ParamStructure says how a method takes its params (OpenRPC's
// paramStructure).
type ParamStructure string

// The param structures.
const (
	ByName     ParamStructure = "by-name"     // an object
	ByPosition ParamStructure = "by-position" // an array
	Either     ParamStructure = "either"      // an object or an array
)

// MethodDoc describes one method for its document, beside what its
// handler's Go types say (a Typed handler's params and result are derived
// from them). Every field is optional.
type MethodDoc struct {
	// Summary is a short line on what the method does; Description says
	// more (CommonMark).
	Summary, Description string
	// Deprecated marks a method that is kept for old clients.
	Deprecated bool
	// ParamStructure says how params may be passed; a Typed handler's is
	// derived from P when empty, a raw handler's defaults to Either.
	ParamStructure ParamStructure
	// Params describe the params in position order, each over the derived
	// param of its name (or position); Result the result (nil: a Typed
	// handler's is derived from R, a raw handler's is any).
	Params []ParamDoc
	Result *ParamDoc
	// Errors are the application errors the method may answer with.
	Errors []*encode.Error
	// Examples pair example params with their results.
	Examples []ExampleDoc
}

// ParamDoc describes one param or the result of a method (an OpenRPC
// content descriptor). For a Typed handler every field left empty is
// derived from the Go type; a raw handler describes its params by hand.
type ParamDoc struct {
	// Name is the param's name: its member name by name, its label by
	// position.
	Name string
	// Summary and Description say what the value is.
	Summary, Description string
	// Schema is the JSON Schema of the value, raw JSON; nil means the one
	// derived from a Typed handler's type, or {} (any value).
	Schema []byte
	// Required marks a param the method cannot do without (a Typed
	// handler's struct member without omitempty is required too).
	Required bool
	// Deprecated marks a param kept for old clients.
	Deprecated bool
	// Variadic marks the last param as repeating: by position, any number
	// of values of Schema follow (a Typed handler's slice P is variadic).
	Variadic bool
}

// ExampleDoc pairs example params with their result.
type ExampleDoc struct {
	// Name names the pairing (default "example1", "example2", ...);
	// Summary and Description say what it shows.
	Name, Summary, Description string
	// Params are the params as in a request: a JSON array or object (nil:
	// none).
	Params []byte
	// Result is the result's JSON (nil: none, as for a notification).
	Result []byte
}

// Describe gives the document the description of the method name, in
// place of any given before (Options.Methods too). Call it beside the
// method's registration, before the engine freezes; afterwards it fails
// with dispatch.ErrFrozen.
func (s *Service) Describe(name string, d MethodDoc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return dispatch.ErrFrozen
	}
	if s.opts.Methods == nil {
		s.opts.Methods = map[string]MethodDoc{}
	}
	s.opts.Methods[name] = d
	return nil
}

// cloneMethods returns a copy of o with a map of its own.
func (o Options) cloneMethods() Options {
	o.Methods = maps.Clone(o.Methods)
	return o
}

// methodDoc returns the description of the method name (none: zero).
func (o *Options) methodDoc(name string) MethodDoc {
	if o == nil {
		return MethodDoc{}
	}
	return o.Methods[name]
}
