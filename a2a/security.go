package a2a

// NOTE: the card's OAuth 2.0 security scheme. A2A 1.0 and 0.3 name it
// with the same member, securitySchemes, in two shapes: 1.0 (the proto's
// JSON) wraps each scheme in its kind ({"oauth2SecurityScheme":{...}})
// and lists the requirements in securityRequirements
// ([{"schemes":{"oauth":{"list":[...]}}}]); 0.3 (OpenAPI) flattens it
// ({"type":"oauth2","flows":...}) and lists them in security
// ([{"oauth":[...]}]). As with the card's other members, one document
// serves both: the scheme object carries both shapes' members, and each
// client reads its own.

// SchemeName is the key of the card's OAuth scheme in securitySchemes and
// in the requirements.
const SchemeName = "oauth"

// OAuth2Security is an OAuth 2.0 security scheme the card declares: a
// caller must send an access token of the authorization server (the
// JSON-RPC endpoint answers 401 without one; the server's HTTP guard
// checks it, not package a2a).
type OAuth2Security struct {
	// MetadataURL is the authorization server's metadata (RFC 8414),
	// oauth2MetadataUrl: where a client finds its endpoints.
	MetadataURL string
	// AuthorizationURL and TokenURL are the authorization code flow's
	// endpoints (the metadata's authorization_endpoint and
	// token_endpoint); without them the card declares no flow, only the
	// metadata URL.
	AuthorizationURL, TokenURL string
	// Scopes are the scopes the flow offers (name to description).
	Scopes map[string]string
	// Required are the scopes every call needs: the card's security
	// requirement.
	Required []string
	// Description describes the scheme to people.
	Description string
}

type oauthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl"`
	TokenURL         string            `json:"tokenUrl"`
	Scopes           map[string]string `json:"scopes"`
}

type oauthFlows struct {
	AuthorizationCode *oauthFlow `json:"authorizationCode,omitempty"`
}

// oauth2Scheme10 is 1.0's OAuth2SecurityScheme.
type oauth2Scheme10 struct {
	Description string      `json:"description,omitempty"`
	Flows       *oauthFlows `json:"flows,omitempty"`
	MetadataURL string      `json:"oauth2MetadataUrl,omitempty"`
}

// securityScheme is one entry of securitySchemes in both shapes: 0.3's
// members (type, flows, oauth2MetadataUrl, description) beside 1.0's
// oauth2SecurityScheme.
type securityScheme struct {
	Type        string          `json:"type"`
	Description string          `json:"description,omitempty"`
	Flows       *oauthFlows     `json:"flows,omitempty"`
	MetadataURL string          `json:"oauth2MetadataUrl,omitempty"`
	OAuth2      *oauth2Scheme10 `json:"oauth2SecurityScheme"`
}

type stringList struct {
	List []string `json:"list"`
}

// securityRequirement10 is 1.0's SecurityRequirement.
type securityRequirement10 struct {
	Schemes map[string]stringList `json:"schemes"`
}

// setIn sets the card document's security members from sec.
func (sec *OAuth2Security) setIn(d *cardDoc) {
	var flows *oauthFlows
	if sec.AuthorizationURL != "" && sec.TokenURL != "" {
		scopes := sec.Scopes
		if scopes == nil {
			scopes = map[string]string{}
		}
		flows = &oauthFlows{AuthorizationCode: &oauthFlow{AuthorizationURL: sec.AuthorizationURL, TokenURL: sec.TokenURL, Scopes: scopes}}
	}
	req := sec.Required
	if req == nil {
		req = []string{}
	}
	d.SecuritySchemes = map[string]securityScheme{SchemeName: {Type: "oauth2", Description: sec.Description,
		Flows: flows, MetadataURL: sec.MetadataURL,
		OAuth2: &oauth2Scheme10{Description: sec.Description, Flows: flows, MetadataURL: sec.MetadataURL}}}
	d.Security = []map[string][]string{{SchemeName: req}}
	d.SecurityRequirements = []securityRequirement10{{Schemes: map[string]stringList{SchemeName: {List: req}}}}
}

// SetSecurity makes the card declare sec (nil: no security), from the
// next time it is served; for a scheme known only once the server runs
// (the authorization server's endpoints, found in its metadata).
func (s *Server) SetSecurity(sec *OAuth2Security) { s.security.Store(sec) }
