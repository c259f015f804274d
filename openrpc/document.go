package openrpc

import "encoding/json"

// Version is the OpenRPC version of the documents Build writes.
const Version = "1.3.2"

// Document is an OpenRPC document. Build writes one; package
// openrpc/gen reads one. The fields named Ref hold a reference object's
// "$ref" (read from other documents; Build writes none): when it is set,
// the other fields are empty.
type Document struct {
	OpenRPC    string      `json:"openrpc"`
	Info       Info        `json:"info"`
	Methods    []Method    `json:"methods"`
	Components *Components `json:"components,omitempty"`
}

// Info is the document's info object.
type Info struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version"`
}

// Method is a method object.
type Method struct {
	Ref            string              `json:"$ref,omitempty"`
	Name           string              `json:"name,omitempty"`
	Summary        string              `json:"summary,omitempty"`
	Description    string              `json:"description,omitempty"`
	ParamStructure string              `json:"paramStructure,omitempty"`
	Params         []ContentDescriptor `json:"params"`
	Result         *ContentDescriptor  `json:"result,omitempty"`
	Errors         []Error             `json:"errors,omitempty"`
	Examples       []ExamplePairing    `json:"examples,omitempty"`
	Deprecated     bool                `json:"deprecated,omitempty"`
}

// ContentDescriptor describes a param or a result. Variadic is the
// extension "x-variadic": by position, any number of values of Schema
// stand where this last param stands.
type ContentDescriptor struct {
	Ref         string          `json:"$ref,omitempty"`
	Name        string          `json:"name,omitempty"`
	Summary     string          `json:"summary,omitempty"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Deprecated  bool            `json:"deprecated,omitempty"`
	Variadic    bool            `json:"x-variadic,omitempty"`
}

// Error is an error object.
type Error struct {
	Ref     string          `json:"$ref,omitempty"`
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ExamplePairing pairs example params with a result.
type ExamplePairing struct {
	Ref         string    `json:"$ref,omitempty"`
	Name        string    `json:"name,omitempty"`
	Summary     string    `json:"summary,omitempty"`
	Description string    `json:"description,omitempty"`
	Params      []Example `json:"params"`
	Result      *Example  `json:"result,omitempty"`
}

// Example is one example value.
type Example struct {
	Ref         string          `json:"$ref,omitempty"`
	Name        string          `json:"name,omitempty"`
	Summary     string          `json:"summary,omitempty"`
	Description string          `json:"description,omitempty"`
	Value       json.RawMessage `json:"value,omitempty"`
}

// Components holds what "$ref"s point to.
type Components struct {
	Schemas            map[string]json.RawMessage   `json:"schemas,omitempty"`
	ContentDescriptors map[string]ContentDescriptor `json:"contentDescriptors,omitempty"`
	Examples           map[string]Example           `json:"examples,omitempty"`
	ExamplePairings    map[string]ExamplePairing    `json:"examplePairings,omitempty"`
	Errors             map[string]Error             `json:"errors,omitempty"`
}
