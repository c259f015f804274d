package acp

import (
	"encoding/json"
	"strconv"

	"github.com/jetrpc/jetrpc/encode"
)

// ContentBlock is one piece of content (a prompt's, a message chunk's, a
// tool call's), a union tagged by Type:
//
//   - "text": Text
//   - "image", "audio": Data (base64) and MimeType; an image may have a URI
//   - "resource_link": URI and Name; MimeType, Title, Description and Size
//     are optional
//   - "resource": Resource, an embedded resource
//
// It is written with the members of its type only (the required ones
// always, so an empty text block still has "text":""); a block of another
// type is written with the members that are set. Annotations and Meta are
// raw JSON and must be valid.
type ContentBlock struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Resource    *EmbeddedResource `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// EmbeddedResource is the resource of a "resource" block: a text resource
// (Text) or, when Blob is set, a binary one (Blob, base64).
type EmbeddedResource struct {
	URI      string          `json:"uri"`
	MimeType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) ContentBlock { return ContentBlock{Type: "text", Text: text} }

// ResourceLinkBlock returns a resource_link block.
func ResourceLinkBlock(uri, name string) ContentBlock {
	return ContentBlock{Type: "resource_link", URI: uri, Name: name}
}

// MarshalJSON writes b as appendJSON does.
func (b ContentBlock) MarshalJSON() ([]byte, error) { return b.appendJSON(nil), nil }

// appendJSON appends b as a JSON object.
func (b *ContentBlock) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = encode.AppendString(dst, b.Type)
	switch b.Type {
	case "text":
		dst = appendMember(dst, "text", b.Text)
	case "image", "audio":
		dst = appendMember(dst, "data", b.Data)
		dst = appendMember(dst, "mimeType", b.MimeType)
		dst = appendOptional(dst, "uri", b.URI)
	case "resource_link":
		dst = appendMember(dst, "uri", b.URI)
		dst = appendMember(dst, "name", b.Name)
		dst = appendOptional(dst, "mimeType", b.MimeType)
		dst = appendOptional(dst, "title", b.Title)
		dst = appendOptional(dst, "description", b.Description)
		dst = appendSize(dst, b.Size)
	case "resource":
		dst = append(dst, `,"resource":`...)
		if b.Resource == nil {
			dst = append(dst, `{"uri":"","text":""}`...)
		} else {
			dst = b.Resource.appendJSON(dst)
		}
	default: // a type this package does not know: what is set
		for _, m := range [...]struct{ k, v string }{{"text", b.Text}, {"data", b.Data},
			{"mimeType", b.MimeType}, {"uri", b.URI}, {"name", b.Name}, {"title", b.Title},
			{"description", b.Description}} {
			dst = appendOptional(dst, m.k, m.v)
		}
		dst = appendSize(dst, b.Size)
		if b.Resource != nil {
			dst = b.Resource.appendJSON(append(dst, `,"resource":`...))
		}
	}
	dst = appendRaw(dst, "annotations", b.Annotations)
	dst = appendRaw(dst, "_meta", b.Meta)
	return append(dst, '}')
}

func (r *EmbeddedResource) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"uri":`...)
	dst = encode.AppendString(dst, r.URI)
	if r.Blob != "" {
		dst = appendMember(dst, "blob", r.Blob)
	} else {
		dst = appendMember(dst, "text", r.Text)
	}
	dst = appendOptional(dst, "mimeType", r.MimeType)
	dst = appendRaw(dst, "_meta", r.Meta)
	return append(dst, '}')
}

// appendMember appends ,"key":"v".
func appendMember(dst []byte, key, v string) []byte {
	dst = append(append(append(dst, ',', '"'), key...), '"', ':')
	return encode.AppendString(dst, v)
}

// appendOptional appends ,"key":"v" unless v is empty.
func appendOptional(dst []byte, key, v string) []byte {
	if v == "" {
		return dst
	}
	return appendMember(dst, key, v)
}

// appendRaw appends ,"key":v with v raw JSON, unless v is empty.
func appendRaw(dst []byte, key string, v json.RawMessage) []byte {
	if len(v) == 0 {
		return dst
	}
	dst = append(append(append(dst, ',', '"'), key...), '"', ':')
	return append(dst, v...)
}

func appendSize(dst []byte, size *int64) []byte {
	if size == nil {
		return dst
	}
	return strconv.AppendInt(append(dst, `,"size":`...), *size, 10)
}
