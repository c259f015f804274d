package dispatch

import "reflect"

// typedInfo is what a Typed handler tells about itself (see TypesOf).
type typedInfo interface {
	types() (params, result reflect.Type)
}

func (h *typedHandler[P, R]) types() (params, result reflect.Type) {
	return reflect.TypeFor[P](), reflect.TypeFor[R]()
}
