// Package proto holds the MCP protocol's small shared rules: the revisions
// spoken and how they are negotiated, and the members of a request's
// params that the methods and the HTTP endpoint read. Package mcp and its
// transports share it; it is internal so that users see only mcp's names.
package proto

// Protocol revisions (mcp re-exports them).
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"

	// Latest is the newest initialize-based revision.
	Latest = Version20251125
	// Modern is the revision served without initialize or sessions.
	Modern = Version20260728
)

// Legacy are the initialize-based revisions, newest first.
var Legacy = [...]string{Version20251125, Version20250618, Version20250326, Version20241105}

// SupportedJSON lists every revision, newest first, as server/discover
// and UnsupportedProtocolVersion errors name them (a JSON array).
const SupportedJSON = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`

// IsLegacy reports whether v is an initialize-based revision spoken here.
func IsLegacy[T string | []byte](v T) bool {
	for _, l := range Legacy {
		if string(v) == l {
			return true
		}
	}
	return false
}

// IsSupported reports whether v is any revision spoken here.
func IsSupported[T string | []byte](v T) bool { return string(v) == Modern || IsLegacy(v) }

// Negotiate returns the revision initialize answers a client that asked for
// requested: that one when it is spoken here, else Latest.
func Negotiate(requested []byte) string {
	for _, l := range Legacy {
		if string(requested) == l {
			return l
		}
	}
	return Latest
}

// AtLeast reports whether revision v (a date, as the revisions are named)
// is a or later.
func AtLeast(v, a string) bool { return v >= a }
