package mcp

// Protocol revisions this package speaks. The initialize-based ones are
// negotiated by initialize; Modern is declared by each request.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"

	// Latest is the newest initialize-based revision: what initialize
	// answers a client asking for one this package does not speak.
	Latest = Version20251125
	// Modern is the revision served without initialize or sessions.
	Modern = Version20260728
)

// legacyVersions are the initialize-based revisions, newest first.
var legacyVersions = [...]string{Version20251125, Version20250618, Version20250326, Version20241105}

// supportedVersions lists every revision, newest first, as server/discover
// and UnsupportedProtocolVersion errors name them (a JSON array).
const supportedJSON = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`

// isLegacy reports whether v is an initialize-based revision spoken here.
func isLegacy[T string | []byte](v T) bool {
	for _, l := range legacyVersions {
		if string(v) == l {
			return true
		}
	}
	return false
}

// isSupported reports whether v is any revision spoken here.
func isSupported[T string | []byte](v T) bool { return string(v) == Modern || isLegacy(v) }

// negotiate returns the revision initialize answers a client that asked for
// requested: that one when it is spoken here, else Latest.
func negotiate(requested []byte) string {
	for _, l := range legacyVersions {
		if string(requested) == l {
			return l
		}
	}
	return Latest
}

// atLeast reports whether revision v (a date, as the revisions are named)
// is a or later.
func atLeast(v, a string) bool { return v >= a }
