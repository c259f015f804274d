package mcp

import "github.com/jetrpc/jetrpc/mcp/internal/proto"

// Protocol revisions this package speaks. The initialize-based ones are
// negotiated by initialize; Modern is declared by each request.
const (
	Version20241105 = proto.Version20241105
	Version20250326 = proto.Version20250326
	Version20250618 = proto.Version20250618
	Version20251125 = proto.Version20251125
	Version20260728 = proto.Version20260728

	// Latest is the newest initialize-based revision: what initialize
	// answers a client asking for one this package does not speak.
	Latest = proto.Latest
	// Modern is the revision served without initialize or sessions.
	Modern = proto.Modern
)
