package oauth

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// introspection is the members of an introspection answer (RFC 7662
// §2.2) this package reads.
type introspection struct {
	Active    bool     `json:"active"`
	Scope     string   `json:"scope"`
	ClientID  string   `json:"client_id"`
	Username  string   `json:"username"`
	TokenType string   `json:"token_type"`
	Exp       *float64 `json:"exp"`
	Iat       *float64 `json:"iat"`
	Nbf       *float64 `json:"nbf"`
	Sub       string   `json:"sub"`
	Aud       strings1 `json:"aud"`
	Iss       string   `json:"iss"`
	Jti       string   `json:"jti"`
}

// introspect asks the introspection endpoint about token (RFC 7662 §2.1,
// with client_secret_basic) and checks the answer: active; exp, nbf and
// iat with the leeway; aud, when given, containing the resource; iss, when
// given and the Validator has issuers, one of them; not a refresh token.
func (v *Validator) introspect(token []byte, now time.Time) (*Token, time.Time, error) {
	var none time.Time
	in := v.intro
	form := url.Values{"token": {string(token)}, "token_type_hint": {"access_token"}}
	ctx, cancel := context.WithTimeout(context.Background(), v.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, none, unavailable(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the id and secret are form-encoded, then Basic.
	req.SetBasicAuth(url.QueryEscape(in.ClientID), url.QueryEscape(in.ClientSecret))
	var a introspection
	if err := v.do(req, &a); err != nil {
		return nil, none, unavailable(err)
	}
	if !a.Active {
		return nil, none, ErrInactive
	}
	if strings.EqualFold(a.TokenType, "refresh_token") {
		return nil, none, ErrType
	}
	exp, ok1 := numericDate(a.Exp)
	nbf, ok2 := numericDate(a.Nbf)
	iat, ok3 := numericDate(a.Iat)
	if !ok1 || !ok2 || !ok3 {
		return nil, none, ErrMalformed
	}
	until, err := v.checkTimes(exp, nbf, iat, now)
	if err != nil {
		return nil, none, err
	}
	if a.Aud != nil && !v.audienceOK(a.Aud) {
		return nil, none, ErrAudience
	}
	if a.Iss != "" && len(v.issuers) > 0 && v.issuers[a.Iss] == nil {
		return nil, none, ErrIssuer
	}
	ttl := orDefault(in.TTL, DefaultIntrospectTTL)
	if limit := now.Add(ttl); until.IsZero() || limit.Before(until) {
		until = limit
	}
	t := &Token{
		Issuer:       a.Iss,
		Subject:      a.Sub,
		ClientID:     a.ClientID,
		Scopes:       strings.Fields(a.Scope),
		Audience:     a.Aud,
		Expiry:       exp,
		IssuedAt:     iat,
		ID:           a.Jti,
		Introspected: true,
	}
	if t.Subject == "" {
		t.Subject = a.Username
	}
	return t, until, nil
}
