package mcp

import (
	"context"

	"github.com/jetrpc/jetrpc/encode"
)

// Resource is a resource a Server offers, read by its Read function.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	// Read returns the contents of the resource at uri (this resource's
	// URI).
	Read func(ctx context.Context, uri string) ([]ResourceContents, error)
}

// ResourceContents is the contents of a resource: Text, or Blob (base64
// on the wire) when Blob is not nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

func (rc *ResourceContents) appendTo(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"uri":`...), rc.URI)
	dst = appendOpt(dst, "mimeType", rc.MIMEType)
	if rc.Blob != nil {
		dst = appendBase64(append(dst, `,"blob":`...), rc.Blob)
	} else {
		dst = encode.AppendString(append(dst, `,"text":`...), rc.Text)
	}
	return append(dst, '}')
}

func (r *Resource) appendDesc(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"uri":`...), r.URI)
	dst = encode.AppendString(append(dst, `,"name":`...), r.Name)
	dst = appendOpt(dst, "title", r.Title)
	dst = appendOpt(dst, "description", r.Description)
	dst = appendOpt(dst, "mimeType", r.MIMEType)
	return append(dst, '}')
}

// Prompt is a prompt template a Server offers.
type Prompt struct {
	Name, Title, Description string
	Arguments                []PromptArgument
	// Get returns the prompt's messages for the arguments given.
	Get func(ctx context.Context, args map[string]string) (*PromptResult, error)
}

// PromptArgument describes one argument of a Prompt.
type PromptArgument struct {
	Name, Title, Description string
	Required                 bool
}

// PromptResult is what prompts/get answers.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt: Role "user" or "assistant".
type PromptMessage struct {
	Role    string
	Content Content
}

func (p *Prompt) appendDesc(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"name":`...), p.Name)
	dst = appendOpt(dst, "title", p.Title)
	dst = appendOpt(dst, "description", p.Description)
	if len(p.Arguments) > 0 {
		dst = append(dst, `,"arguments":[`...)
		for i, a := range p.Arguments {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = encode.AppendString(append(dst, `{"name":`...), a.Name)
			dst = appendOpt(dst, "title", a.Title)
			dst = appendOpt(dst, "description", a.Description)
			if a.Required {
				dst = append(dst, `,"required":true`...)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func (r *PromptResult) appendTo(dst []byte, modern bool) []byte {
	dst = resultStart(dst, modern)
	if r.Description != "" {
		dst = encode.AppendString(append(dst, `"description":`...), r.Description)
		dst = append(dst, ',')
	}
	dst = append(dst, `"messages":[`...)
	for i := range r.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		m := &r.Messages[i]
		dst = encode.AppendString(append(dst, `{"role":`...), m.Role)
		dst = m.Content.appendTo(append(dst, `,"content":`...))
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}
