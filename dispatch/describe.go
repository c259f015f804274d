package dispatch

import "reflect"

// NOTE: what a method shows of itself to packages built on the engine:
// the methods as registered (Methods), the Go types of Typed handlers
// (TypesOf), and hooks that run when the table freezes (OnFreeze). Package
// openrpc builds its document from these, beside the descriptions it is
// given, and adds "rpc.discover" through a FreezeHook.

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
