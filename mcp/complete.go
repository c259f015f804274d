package mcp

import (
	"context"
	"encoding/json"

	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

// CompleteRequest is a completion/complete request: complete the argument
// Argument of the prompt or resource template Ref, whose other arguments
// already have the values of Context.
type CompleteRequest struct {
	Ref      CompleteRef       `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  map[string]string `json:"-"` // context.arguments
}

// CompleteRef names what is completed: Type "ref/prompt" with Name, or
// "ref/resource" with URI (a resource template's).
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Completion is completion/complete's answer: at most 100 values, the
// total count when known (0: unknown) and whether there are more.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// Completer answers completion/complete requests.
type Completer func(ctx context.Context, req *CompleteRequest) (*Completion, error)

// SetCompleter makes fn answer completion/complete and declares the
// completions capability. It fails once serving.
func (s *Server) SetCompleter(fn Completer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return ErrFrozen
	}
	s.ext.completer = fn
	return nil
}

func (s *Server) complete(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	if s.ext.completer == nil {
		return dst, methodNotFound()
	}
	var in struct {
		CompleteRequest
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if json.Unmarshal(params, &in) != nil || in.Ref.Type == "" {
		return dst, invalidParams("completion/complete needs a ref and an argument")
	}
	req := in.CompleteRequest
	req.Context = in.Context.Arguments
	res, err := s.ext.completer(c, &req)
	if err != nil {
		return dst, err
	}
	if res == nil {
		res = &Completion{}
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > 100 {
		res.Values, res.HasMore = res.Values[:100], true
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return dst, err
	}
	dst = append(resultStart(dst, c.modern), `"completion":`...)
	return append(append(dst, raw...), '}'), nil
}
