package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// WellKnownPath is where RFC 9728 puts protected resource metadata: at
// this path for a resource at the root of its host, with the resource's
// path appended for any other ("/.well-known/oauth-protected-resource/mcp"
// for https://example.com/mcp).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Metadata describes a protected resource (RFC 9728 §2). Resource and
// AuthorizationServers are required.
type Metadata struct {
	// Resource is the resource's canonical URI (the MCP specification's
	// term; RFC 8707's resource indicator): an absolute http or https URI
	// without fragment or query, such as "https://mcp.example.com/mcp".
	// Clients ask for tokens with it, and a token's audience must
	// contain it.
	Resource string
	// AuthorizationServers are the issuer identifiers of the authorization
	// servers whose tokens the resource accepts.
	AuthorizationServers []string
	// ScopesSupported are the scopes clients may ask for (omitted when
	// empty). A client that gets no scope in a challenge asks for these.
	ScopesSupported []string
	// ResourceName is a name for people (omitted when empty).
	ResourceName string
	// ResourceDocumentation is the URL of documentation for developers
	// (omitted when empty).
	ResourceDocumentation string
}

// document is Metadata as RFC 9728 names its members.
type document struct {
	Resource              string   `json:"resource"`
	AuthorizationServers  []string `json:"authorization_servers"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	BearerMethods         []string `json:"bearer_methods_supported"`
	ResourceName          string   `json:"resource_name,omitempty"`
	ResourceDocumentation string   `json:"resource_documentation,omitempty"`
}

// Resource is a protected resource, compiled from its Metadata once: the
// document, where to serve it, and the parts of its challenges. It is
// immutable and safe for concurrent use.
type Resource struct {
	uri     string
	doc     []byte
	paths   []string
	metaURL string
	// quotedMeta is `resource_metadata="<metaURL>"`, escaped.
	quotedMeta []byte
}

// NewResource checks m and compiles it. The canonical URI's scheme and
// host are lower-cased (RFC 3986 §6.2.2.1); the rest is kept as given.
func NewResource(m Metadata) (*Resource, error) {
	uri, err := CanonicalURI(m.Resource)
	if err != nil {
		return nil, err
	}
	if len(m.AuthorizationServers) == 0 {
		return nil, errors.New("oauth: the resource needs at least one authorization server")
	}
	for _, as := range m.AuthorizationServers {
		if u, err := url.Parse(as); err != nil || !u.IsAbs() || u.Host == "" {
			return nil, fmt.Errorf("oauth: authorization server %q is not an absolute URL", as)
		}
	}
	for _, s := range m.ScopesSupported {
		if !validScope(s) {
			return nil, fmt.Errorf("oauth: %q is not a scope (RFC 6749 §3.3)", s)
		}
	}
	d := document{
		Resource:              uri,
		AuthorizationServers:  m.AuthorizationServers,
		ScopesSupported:       m.ScopesSupported,
		BearerMethods:         []string{"header"},
		ResourceName:          m.ResourceName,
		ResourceDocumentation: m.ResourceDocumentation,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&d); err != nil {
		return nil, err
	}
	u, _ := url.Parse(uri) // checked by CanonicalURI
	r := &Resource{uri: uri, doc: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	r.paths = []string{WellKnownPath + path}
	if path != "" {
		r.paths = append(r.paths, WellKnownPath)
	}
	r.metaURL = u.Scheme + "://" + u.Host + r.paths[0]
	r.quotedMeta = appendQuoted(append([]byte(nil), `resource_metadata=`...), r.metaURL)
	return r, nil
}

// CanonicalURI checks that uri can be a resource's canonical URI (an
// absolute http or https URI with a host and without fragment, query or
// user information) and returns it with its scheme and host lower-cased.
func CanonicalURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", fmt.Errorf("oauth: resource %q: %v", uri, err)
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("oauth: resource %q is not an absolute URI", uri)
	case !strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http"):
		return "", fmt.Errorf("oauth: resource %q is neither https nor http", uri)
	case u.Fragment != "" || strings.Contains(uri, "#"):
		return "", fmt.Errorf("oauth: resource %q has a fragment", uri)
	case u.RawQuery != "" || u.ForceQuery:
		return "", fmt.Errorf("oauth: resource %q has a query", uri)
	case u.User != nil:
		return "", fmt.Errorf("oauth: resource %q has user information", uri)
	case strings.ContainsAny(uri, "\"\\ \t\r\n"):
		return "", fmt.Errorf("oauth: resource %q has a character a URI cannot", uri)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}

// URI returns the resource's canonical URI: the audience its tokens must
// have.
func (r *Resource) URI() string { return r.uri }

// Document returns the protected resource metadata document (JSON, RFC
// 9728 §2), to be served with Content-Type application/json and no
// authentication at each of Paths. The caller must not change it.
func (r *Resource) Document() []byte { return r.doc }

// Paths returns the paths Document belongs at: first the one RFC 9728
// builds from the canonical URI ("/.well-known/oauth-protected-resource/mcp"
// for a resource at /mcp), then, for a resource not at the root of its
// host, "/.well-known/oauth-protected-resource", which MCP clients try
// next. The caller must not change the slice.
func (r *Resource) Paths() []string { return r.paths }

// MetadataURL returns the URL of the document, Paths()[0] on the
// resource's host: the resource_metadata of the challenges.
func (r *Resource) MetadataURL() string { return r.metaURL }
