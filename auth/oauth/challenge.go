package oauth

// NOTE: the WWW-Authenticate values. RFC 6750 §3 restricts the values of
// scope, error and error_description to printable ASCII without '"' and
// '\' (%x20-21 / %x23-5B / %x5D-7E), so those are cleaned, not escaped: a
// '"' becomes '\'', a '\' '/', any other byte outside the set '?'.
// resource_metadata (RFC 9728 §5.1) is a URI in an ordinary quoted-string
// (RFC 9110 §5.6.4), escaped with quoted pairs. The parameters come in the
// order of the MCP specification's examples.

import (
	"errors"

	"github.com/jetrpc/jetrpc/auth"
)

// AppendUnauthorized appends to dst the WWW-Authenticate value of a 401
// answer to a request that err (from Authenticate) refused:
//
//	Bearer resource_metadata="<MetadataURL>", scope="<scope>"
//
// when the request carried no token (err nil or auth.ErrNoCredentials),
// and when a token was refused
//
//	Bearer error="invalid_token", error_description="<auth.Reason(err)>", resource_metadata="<MetadataURL>", scope="<scope>"
//
// The scope parameter, the space-separated scopes a client should ask for
// (the MCP specification's scope selection), is left out when scope is "".
func (r *Resource) AppendUnauthorized(dst []byte, scope string, err error) []byte {
	dst = append(dst, "Bearer "...)
	if err != nil && !errors.Is(err, auth.ErrNoCredentials) {
		dst = append(dst, `error="invalid_token", error_description="`...)
		dst = appendClean(dst, auth.Reason(err), false)
		dst = append(dst, `", `...)
	}
	dst = append(dst, r.quotedMeta...)
	if scope != "" {
		dst = append(dst, `, scope="`...)
		dst = appendClean(dst, scope, true)
		dst = append(dst, '"')
	}
	return dst
}

// AppendForbidden appends to dst the WWW-Authenticate value of a 403
// answer to a request whose token lacks a scope (the MCP specification's
// step-up challenge):
//
//	Bearer error="insufficient_scope", scope="<scope>", resource_metadata="<MetadataURL>", error_description="<description>"
//
// scope is what the client should ask for now (ScopeRules.Needed, perhaps
// with the scopes the token has); error_description is left out when
// description is "", scope when scope is "".
func (r *Resource) AppendForbidden(dst []byte, scope, description string) []byte {
	dst = append(dst, `Bearer error="insufficient_scope", `...)
	if scope != "" {
		dst = append(dst, `scope="`...)
		dst = appendClean(dst, scope, true)
		dst = append(dst, `", `...)
	}
	dst = append(dst, r.quotedMeta...)
	if description != "" {
		dst = append(dst, `, error_description="`...)
		dst = appendClean(dst, description, false)
		dst = append(dst, '"')
	}
	return dst
}

// Unauthorized is AppendUnauthorized as a string.
func (r *Resource) Unauthorized(scope string, err error) string {
	return string(r.AppendUnauthorized(nil, scope, err))
}

// Forbidden is AppendForbidden as a string.
func (r *Resource) Forbidden(scope, description string) string {
	return string(r.AppendForbidden(nil, scope, description))
}

// appendClean appends s with the bytes RFC 6750 §3 does not allow in a
// parameter value replaced. For a scope (NQCHAR and the separating
// spaces) the replacement is dropped instead.
func appendClean(dst []byte, s string, scope bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c < 0x20 || c > 0x7e:
			if scope {
				continue
			}
			switch c {
			case '"':
				c = '\''
			case '\\':
				c = '/'
			default:
				c = '?'
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// appendQuoted appends s as a quoted-string (RFC 9110 §5.6.4).
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// validScope reports whether s is a scope token (RFC 6749 §3.3: one or
// more NQCHAR, %x21 / %x23-5B / %x5D-7E).
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
