package dispatch

import "reflect"

// NOTE: what a method says about itself. The description fields of Method
// (Summary, Params, Result, ...) are kept as registered; the engine never
// reads them. Package openrpc turns them, and the Go types of Typed
// handlers (TypesOf), into an OpenRPC document when the table freezes,
// through a FreezeHook that also adds "rpc.discover".

// ParamStructure says how a method takes its params (OpenRPC's
// paramStructure).
type ParamStructure string

// The param structures.
const (
	ByName     ParamStructure = "by-name"     // an object
	ByPosition ParamStructure = "by-position" // an array
	Either     ParamStructure = "either"      // an object or an array
)

// Param describes one param or the result of a method (an OpenRPC content
// descriptor). For a Typed handler every field left empty is derived from
// the Go type; a raw handler describes its params by hand.
type Param struct {
	// Name is the param's name: its member name by name, its label by
	// position.
	Name        string
	Summary     string
	Description string
	// Schema is the JSON Schema of the value, raw JSON; nil means the one
	// derived from a Typed handler's type, or {} (any value).
	Schema []byte
	// Required marks a param the method cannot do without (a Typed
	// handler's struct member without omitempty is required too).
	Required   bool
	Deprecated bool
	// Variadic marks the last param as repeating: by position, any number
	// of values of Schema follow (a Typed handler's slice P is variadic).
	Variadic bool
}

// Example pairs example params with their result.
type Example struct {
	Name, Summary, Description string
	// Params are the params as in a request: a JSON array or object (nil:
	// none).
	Params []byte
	// Result is the result's JSON (nil: none, as for a notification).
	Result []byte
}

// A FreezeHook runs when the table freezes, with the methods registered so
// far in registration order (fn must not modify them or call the
// Engine). The methods it returns are added to the table as the engine's
// own: they may have reserved "rpc." names, and middleware applies to them
// too. A name already taken is skipped.
type FreezeHook func(registered []Method) []Method

// OnFreeze adds a hook that runs when the table freezes (see FreezeHook).
// It fails with ErrFrozen once the engine froze.
func (e *Engine) OnFreeze(fn FreezeHook) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.frozen.Load() {
		return ErrFrozen
	}
	e.onFreeze = append(e.onFreeze, fn)
	return nil
}

// Methods returns the methods registered so far, in registration order,
// with their handlers as given (before middleware), and without those the
// freeze hooks add. The slice is the caller's.
func (e *Engine) Methods() []Method {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Method(nil), e.methods...)
}

// withHooks returns the registered methods followed by those the freeze
// hooks add. e.mu is held.
func (e *Engine) withHooks() []Method {
	if len(e.onFreeze) == 0 {
		return e.methods
	}
	all := append([]Method(nil), e.methods...)
	seen := make(map[string]bool, len(all))
	for _, m := range all {
		seen[m.Name] = true
	}
	for _, fn := range e.onFreeze {
		for _, m := range fn(append([]Method(nil), e.methods...)) {
			if m.Name != "" && m.Handler != nil && !seen[m.Name] {
				seen[m.Name] = true
				all = append(all, m)
			}
		}
	}
	return all
}

// TypesOf returns the params type P and the result type R of a handler
// made by Typed, and false for any other handler.
func TypesOf(h Handler) (params, result reflect.Type, ok bool) {
	t, ok := h.(typedInfo)
	if !ok {
		return nil, nil, false
	}
	params, result = t.types()
	return params, result, true
}
