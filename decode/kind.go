package decode

// Kind is what a message is.
type Kind uint8

const (
	Invalid       Kind = iota // valid JSON, but not a valid Request or Response: answer -32600
	Call                      // a Request with an id (the id may be null)
	Notification              // a Request without an id member
	Result                    // a success Response
	ErrorResponse             // an error Response
	Batch                     // a non-empty array; members via (*Parser).Batch()
)

var kindNames = [...]string{
	Invalid:       "invalid",
	Call:          "call",
	Notification:  "notification",
	Result:        "result",
	ErrorResponse: "error",
	Batch:         "batch",
}

// String returns a short lower-case name: "invalid", "call", "notification", "result", "error"
// or "batch".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Members is the bit set of envelope members seen.
type Members uint16

const (
	HasJSONRPC Members = 1 << iota
	HasMethod
	HasParams
	HasID
	HasResult
	HasError
	HasMeta
)

// Reason says why a message is Invalid; its String is meant for error.data.
type Reason uint8

const (
	ReasonNone        Reason = iota
	ReasonNotObject          // a message (or batch member) that is not an object
	ReasonVersion            // jsonrpc missing or not exactly "2.0"
	ReasonMethod             // method not a string
	ReasonParams             // params not an array or object
	ReasonID                 // id not a string, number or null
	ReasonDuplicate          // a known member appears twice
	ReasonMixed              // method together with result/error, or both result and error
	ReasonNoMethod           // neither a request nor a response (no method, no result, no error)
	ReasonResponse           // response-shaped but malformed (no id, error not an object)
	ReasonEmptyBatch         // []
	ReasonNestedBatch        // a batch member that is an array
	ReasonBatchLimit         // more batch members than Parser.MaxBatch
)

var reasonText = [...]string{
	ReasonNone:        "",
	ReasonNotObject:   "message must be an object",
	ReasonVersion:     `jsonrpc must be "2.0"`,
	ReasonMethod:      "method must be a string",
	ReasonParams:      "params must be an array or an object",
	ReasonID:          "id must be a string, a number or null",
	ReasonDuplicate:   "duplicate member",
	ReasonMixed:       "method, result and error exclude each other",
	ReasonNoMethod:    "missing method",
	ReasonResponse:    "malformed response",
	ReasonEmptyBatch:  "empty batch",
	ReasonNestedBatch: "nested batch",
	ReasonBatchLimit:  "too many batch members",
}

// String returns a short lower-case text, e.g. `jsonrpc must be "2.0"` or "duplicate member";
// "" for ReasonNone.
func (r Reason) String() string {
	if int(r) < len(reasonText) {
		return reasonText[r]
	}
	return "unknown reason"
}
