package dispatch

import "context"

// callCtx is the context a handler sees. It lives in pooled per-call state so
// that passing it as a context.Context costs no allocation; it is valid only
// until the handler returns (Done and Err follow the parent).
type callCtx struct {
	context.Context
	meta    []byte
	method  []byte
	id      []byte
	inBatch bool  // a batch member: its response belongs in the batch's array
	replied bool  // Peer.Reply sent the response already
	ticks   uint8 // calls of learned methods, for sampling their time (cost.go)
}

// clear drops the request's bytes once the handler has returned.
func (c *callCtx) clear() { c.meta, c.id, c.method, c.replied = nil, nil, nil, false }

type ctxKey uint8

const (
	metaKey ctxKey = iota
	idKey
	methodKey
	callKey // the *callCtx itself (for Peer.Reply)
)

func (c *callCtx) Value(key any) any {
	if k, ok := key.(ctxKey); ok {
		switch k { // the byte slices by pointer: boxing a slice would allocate
		case metaKey:
			return &c.meta
		case idKey:
			return &c.id
		case methodKey:
			return &c.method
		case callKey:
			return c
		}
	}
	return c.Context.Value(key)
}

func bytesValue(ctx context.Context, k ctxKey) []byte {
	if b, _ := ctx.Value(k).(*[]byte); b != nil {
		return *b
	}
	return nil
}

// Meta returns the raw JSON of the request's "_meta" member, or nil. The bytes
// are valid only during the handler call; copy them to keep them.
func Meta(ctx context.Context) []byte { return bytesValue(ctx, metaKey) }

// RequestID returns the raw JSON of the request's id (nil for a notification).
// Valid only during the handler call.
func RequestID(ctx context.Context) []byte { return bytesValue(ctx, idKey) }

// MethodName returns the method being served. Valid only during the handler call.
func MethodName(ctx context.Context) []byte { return bytesValue(ctx, methodKey) }
