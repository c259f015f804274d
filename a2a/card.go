package a2a

import (
	"encoding/json"
)

// AgentCard describes the agent: what the card documents say of it.
type AgentCard struct {
	Name               string
	Description        string
	Version            string
	Provider           *AgentProvider
	DocumentationURL   string
	DefaultInputModes  []string // default ["text/plain"]
	DefaultOutputModes []string // default ["text/plain"]
	Skills             []AgentSkill
	// Streaming and PushNotifications declare the capabilities; a server
	// without them answers those methods with -32004 and -32003.
	Streaming         bool
	PushNotifications bool
	// Extensions are the extensions the agent supports; a request that
	// does not name a Required one (A2A-Extensions header, X-A2A-Extensions
	// on 0.3) gets -32008.
	Extensions []AgentExtension
	// ExtendedSkills, when not nil, make the extended card (1.0
	// GetExtendedAgentCard, 0.3 agent/getAuthenticatedExtendedCard): this
	// card with these skills added. Nil: -32007.
	ExtendedSkills []AgentSkill
}

// AgentProvider names who runs the agent.
type AgentProvider struct {
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// AgentSkill is one thing the agent can do.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// AgentExtension is an extension the agent supports.
type AgentExtension struct {
	URI         string          `json:"uri"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
}

type agentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding,omitempty"`
	Transport       string `json:"transport,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

type capabilities struct {
	Streaming              bool             `json:"streaming"`
	PushNotifications      bool             `json:"pushNotifications"`
	StateTransitionHistory bool             `json:"stateTransitionHistory"`
	ExtendedAgentCard      bool             `json:"extendedAgentCard"`
	Extensions             []AgentExtension `json:"extensions,omitempty"`
}

// cardDoc is the card as JSON: the 1.0 members (supportedInterfaces,
// capabilities.extendedAgentCard) beside the 0.3 ones (url,
// preferredTransport, protocolVersion, additionalInterfaces,
// supportsAuthenticatedExtendedCard), so that a client of either reads it.
type cardDoc struct {
	ProtocolVersion                   string           `json:"protocolVersion"`
	Name                              string           `json:"name"`
	Description                       string           `json:"description"`
	URL                               string           `json:"url"`
	PreferredTransport                string           `json:"preferredTransport"`
	AdditionalInterfaces              []agentInterface `json:"additionalInterfaces"`
	SupportedInterfaces               []agentInterface `json:"supportedInterfaces"`
	Provider                          *AgentProvider   `json:"provider,omitempty"`
	Version                           string           `json:"version"`
	DocumentationURL                  string           `json:"documentationUrl,omitempty"`
	Capabilities                      capabilities     `json:"capabilities"`
	DefaultInputModes                 []string         `json:"defaultInputModes"`
	DefaultOutputModes                []string         `json:"defaultOutputModes"`
	Skills                            []AgentSkill     `json:"skills"`
	SupportsAuthenticatedExtendedCard bool             `json:"supportsAuthenticatedExtendedCard"`
	// The OAuth scheme (security.go): 1.0's and 0.3's.
	SecuritySchemes      map[string]securityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []securityRequirement10   `json:"securityRequirements,omitempty"`
	Security             []map[string][]string     `json:"security,omitempty"`
}

// document renders the card with url as its JSON-RPC endpoint; extended
// adds the extended skills; sec, when not nil, is its security scheme.
func (c *AgentCard) document(url string, extended bool, sec *OAuth2Security) []byte {
	or := func(v []string) []string {
		if len(v) == 0 {
			return []string{"text/plain"}
		}
		return v
	}
	skills := append([]AgentSkill{}, c.Skills...)
	if extended {
		skills = append(skills, c.ExtendedSkills...)
	}
	for i := range skills {
		if skills[i].Tags == nil {
			skills[i].Tags = []string{}
		}
	}
	d := cardDoc{ProtocolVersion: "0.3.0", Name: c.Name, Description: c.Description, URL: url,
		PreferredTransport:   "JSONRPC",
		AdditionalInterfaces: []agentInterface{{URL: url, Transport: "JSONRPC"}},
		SupportedInterfaces: []agentInterface{{URL: url, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
			{URL: url, ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"}},
		Provider: c.Provider, Version: c.Version, DocumentationURL: c.DocumentationURL,
		Capabilities: capabilities{Streaming: c.Streaming, PushNotifications: c.PushNotifications,
			StateTransitionHistory: true, ExtendedAgentCard: c.ExtendedSkills != nil, Extensions: c.Extensions},
		DefaultInputModes: or(c.DefaultInputModes), DefaultOutputModes: or(c.DefaultOutputModes),
		Skills: skills, SupportsAuthenticatedExtendedCard: c.ExtendedSkills != nil}
	if d.Version == "" {
		d.Version = "0.1.0"
	}
	if sec != nil {
		sec.setIn(&d)
	}
	b, err := json.Marshal(&d)
	if err != nil {
		panic(err) // fixed types: a bug
	}
	return b
}
