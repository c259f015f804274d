package mcp

import (
	"encoding/base64"

	"github.com/jetrpc/jetrpc/encode"
)

// Content is one item of a tool's result or a prompt's message: text, an
// image, audio, an embedded resource or a link to a resource. Make it with
// TextContent, ImageContent, AudioContent, ResourceContent or
// ResourceLink.
type Content struct {
	Type     string // "text", "image", "audio", "resource" or "resource_link"
	Text     string // text
	Data     []byte // image, audio: the bytes (base64 on the wire)
	MIMEType string // image, audio, resource_link
	// Resource is an embedded resource's contents.
	Resource *ResourceContents
	// URI, Name, Title and Description describe a resource_link.
	URI, Name, Title, Description string
}

// TextContent returns text content.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// ImageContent returns an image of the MIME type (image/png, ...).
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: "image", Data: data, MIMEType: mimeType}
}

// AudioContent returns audio of the MIME type (audio/wav, ...).
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: "audio", Data: data, MIMEType: mimeType}
}

// ResourceContent returns an embedded resource.
func ResourceContent(rc ResourceContents) Content { return Content{Type: "resource", Resource: &rc} }

// ResourceLink returns a link to the resource of uri, named name.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: "resource_link", URI: uri, Name: name, MIMEType: mimeType}
}

// appendTo appends c with exactly the members of its type.
func (c *Content) appendTo(dst []byte) []byte {
	dst = encode.AppendString(append(dst, `{"type":`...), c.Type)
	switch c.Type {
	case "text":
		dst = encode.AppendString(append(dst, `,"text":`...), c.Text)
	case "image", "audio":
		dst = appendBase64(append(dst, `,"data":`...), c.Data)
		dst = encode.AppendString(append(dst, `,"mimeType":`...), c.MIMEType)
	case "resource":
		rc := c.Resource
		if rc == nil {
			rc = &ResourceContents{}
		}
		dst = rc.appendTo(append(dst, `,"resource":`...))
	case "resource_link":
		dst = encode.AppendString(append(dst, `,"uri":`...), c.URI)
		dst = encode.AppendString(append(dst, `,"name":`...), c.Name)
		dst = appendOpt(dst, "title", c.Title)
		dst = appendOpt(dst, "description", c.Description)
		dst = appendOpt(dst, "mimeType", c.MIMEType)
	}
	return append(dst, '}')
}

// appendBase64 appends b as a base64 JSON string.
func appendBase64(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
