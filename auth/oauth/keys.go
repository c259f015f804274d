package oauth

// NOTE: an issuer's keys. The key set is an immutable *keySet behind an
// atomic pointer, so verifying reads it without a lock. Fetching (the
// metadata once, then the JWKS) happens under is.mu, which also makes the
// requests that wait for it use its result rather than fetch again. Two
// things fetch: a kid the set lacks (at most once per RefreshInterval,
// counted from the last attempt), and a set older than KeysMaxAge (by
// whichever request gets the lock first; the others use the set they
// have). A fetched set replaces the old one whole: a rotated-in key is
// there, a withdrawn one is gone, a key still published stays.

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds the documents read from an authorization server.
const maxBody = 1 << 20

// minRSABits is the smallest RSA key accepted (RFC 7518 §3.3).
const minRSABits = 2048

// issuer is one authorization server and its keys.
type issuer struct {
	id   string
	v    *Validator
	keys atomic.Pointer[keySet]

	mu      sync.Mutex
	tried   time.Time // the last fetch attempt
	jwksURI string    // from the metadata, once discovered
}

// keySet is an issuer's JWKS as fetched at one time.
type keySet struct {
	keys    []key
	fetched time.Time
}

// key is one usable public key of a JWKS.
type key struct {
	kid string
	alg algorithm
	pub crypto.PublicKey // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// verify checks sig over input with the issuer's key for kid and alg,
// fetching the keys when it has none (or they are old) and refreshing them
// once when it lacks the key.
func (is *issuer) verify(kid string, alg algorithm, input, sig []byte, now time.Time) error {
	ks := is.keys.Load()
	if ks != nil && now.Sub(ks.fetched) > is.v.maxAge {
		ks = is.refreshStale(ks, now)
	}
	if found, err := ks.verify(kid, alg, input, sig); found {
		return err
	}
	ks, err := is.refreshUnknown(ks, now)
	if err != nil {
		return err
	}
	if found, err := ks.verify(kid, alg, input, sig); found {
		return err
	}
	return ErrUnknownKey
}

// verify tries the keys that match kid (any, when kid is "") and alg; found
// reports whether there was one.
func (ks *keySet) verify(kid string, alg algorithm, input, sig []byte) (found bool, err error) {
	if ks == nil {
		return false, nil
	}
	for i := range ks.keys {
		k := &ks.keys[i]
		if k.alg != alg || (kid != "" && k.kid != kid) {
			continue
		}
		found = true
		if k.verifies(input, sig) {
			return true, nil
		}
	}
	return found, ErrSignature
}

// verifies reports whether sig is k's signature of input.
func (k *key) verifies(input, sig []byte) bool {
	switch pub := k.pub.(type) {
	case *rsa.PublicKey:
		h := sha256.Sum256(input)
		return rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], sig) == nil
	case *ecdsa.PublicKey:
		if len(sig) != 64 { // RFC 7518 §3.4: R and S, 32 bytes each
			return false
		}
		h := sha256.Sum256(input)
		r := new(big.Int).SetBytes(sig[:32])
		s := new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(pub, h[:], r, s)
	case ed25519.PublicKey:
		return ed25519.Verify(pub, input, sig)
	}
	return false
}

// refreshStale fetches the keys again if no other request is doing so and
// no attempt was made in the last RefreshInterval; it returns the set to
// use (the old one when the fetch fails).
func (is *issuer) refreshStale(ks *keySet, now time.Time) *keySet {
	if !is.mu.TryLock() {
		return ks
	}
	defer is.mu.Unlock()
	if cur := is.keys.Load(); cur != ks {
		return cur
	}
	if now.Sub(is.tried) >= is.v.refresh {
		is.tried = now
		if fresh, err := is.fetch(context.Background(), now); err == nil {
			return fresh
		}
	}
	return ks
}

// refreshUnknown fetches the keys for a kid that ks lacks, unless another
// request fetched them since ks was loaded (then it uses theirs) or the
// last attempt was less than RefreshInterval ago (then the kid stays
// unknown). The first fetch of all is never held back.
func (is *issuer) refreshUnknown(ks *keySet, now time.Time) (*keySet, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if cur := is.keys.Load(); cur != ks {
		return cur, nil
	}
	if !is.tried.IsZero() && now.Sub(is.tried) < is.v.refresh {
		if ks == nil {
			return nil, ErrUnavailable
		}
		return nil, ErrUnknownKey
	}
	is.tried = now
	return is.fetch(context.Background(), now)
}

// prefetch fetches the keys now (Validator.Discover).
func (is *issuer) prefetch(ctx context.Context) error {
	is.mu.Lock()
	defer is.mu.Unlock()
	now := is.v.now()
	is.tried = now
	_, err := is.fetch(ctx, now)
	return err
}

// fetch discovers the JWKS URI if need be, fetches the JWKS and publishes
// it; is.mu is held. It returns ErrUnavailable (wrapping the cause) when
// it fails.
func (is *issuer) fetch(ctx context.Context, now time.Time) (*keySet, error) {
	if is.jwksURI == "" {
		u, err := is.discover(ctx)
		if err != nil {
			return nil, unavailable(err)
		}
		is.jwksURI = u
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := is.v.getJSON(ctx, is.jwksURI, &doc); err != nil {
		is.jwksURI = "" // discover again next time: the server may have moved it
		return nil, unavailable(err)
	}
	ks := &keySet{fetched: now}
	for _, raw := range doc.Keys {
		if k, ok := parseJWK(raw); ok {
			ks.keys = append(ks.keys, k)
		}
	}
	is.keys.Store(ks)
	return ks, nil
}

// unavailableError is ErrUnavailable with its cause, for logs.
type unavailableError struct{ cause error }

func (e *unavailableError) Error() string   { return ErrUnavailable.Error() + ": " + e.cause.Error() }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }
func unavailable(cause error) error         { return &unavailableError{cause} }

// MetadataURLs returns where an authorization server's metadata may be,
// in the order the MCP specification tries them: RFC 8414's
// /.well-known/oauth-authorization-server and OpenID Connect Discovery's
// /.well-known/openid-configuration, inserted before the issuer's path,
// then (for an issuer with a path) the OpenID form appended to it.
func MetadataURLs(issuerID string) ([]string, error) {
	u, err := url.Parse(issuerID)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("oauth: issuer %q is not an absolute URL", issuerID)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	urls := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		urls = append(urls, origin+path+"/.well-known/openid-configuration")
	}
	return urls, nil
}

// discover finds the issuer's jwks_uri in its metadata; the metadata's
// issuer must be the issuer's identifier exactly (RFC 8414 §3.3).
func (is *issuer) discover(ctx context.Context) (string, error) {
	urls, err := MetadataURLs(is.id)
	if err != nil {
		return "", err
	}
	var errs []error
	for _, u := range urls {
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := is.v.getJSON(ctx, u, &md); err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case md.Issuer != is.id:
			errs = append(errs, fmt.Errorf("%s: issuer %q is not %q", u, md.Issuer, is.id))
		case md.JWKSURI == "":
			errs = append(errs, fmt.Errorf("%s: no jwks_uri", u))
		default:
			if err := checkFetchURL(md.JWKSURI); err != nil {
				return "", fmt.Errorf("%s: jwks_uri: %v", u, err)
			}
			return md.JWKSURI, nil
		}
	}
	return "", errors.Join(errs...)
}

// getJSON fetches u and decodes its JSON body into v.
func (v *Validator) getJSON(ctx context.Context, u string, into any) error {
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	return v.do(req, into)
}

// do sends req and decodes a 200 answer's JSON body into v.
func (v *Validator) do(req *http.Request, into any) error {
	resp, err := v.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s: %s", req.URL, resp.Status)
	case len(body) > maxBody:
		return fmt.Errorf("%s: the answer is larger than %d bytes", req.URL, maxBody)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%s: %v", req.URL, err)
	}
	return nil
}

// checkFetchURL refuses URLs the keys or tokens must not come through:
// anything but https, except http to a loopback host (tests, a local
// authorization server).
func checkFetchURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return fmt.Errorf("%q: only https (or http to a loopback address)", s)
}

// jwk is the members of a JSON Web Key (RFC 7517) this package reads.
type jwk struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Use    string   `json:"use"`
	Alg    string   `json:"alg"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
}

// parseJWK returns the key raw holds if it is a signature key of RS256
// (RSA, at least 2048 bits), ES256 (EC P-256) or EdDSA (OKP Ed25519);
// other keys (encryption keys, symmetric keys, other algorithms) are
// skipped.
func parseJWK(raw json.RawMessage) (key, bool) {
	var j jwk
	if json.Unmarshal(raw, &j) != nil || (j.Use != "" && j.Use != "sig") {
		return key{}, false
	}
	if j.KeyOps != nil && !contains(j.KeyOps, "verify") {
		return key{}, false
	}
	k := key{kid: j.Kid}
	switch {
	case j.Kty == "RSA":
		n, err1 := b64.DecodeString(j.N)
		e, err2 := b64.DecodeString(j.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			return key{}, false
		}
		exp := 0
		for _, b := range e {
			exp = exp<<8 | int(b)
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: exp}
		if pub.N.BitLen() < minRSABits || exp < 3 || exp&1 == 0 {
			return key{}, false
		}
		k.alg, k.pub = algRS256, pub
	case j.Kty == "EC" && j.Crv == "P-256":
		x, err1 := b64.DecodeString(j.X)
		y, err2 := b64.DecodeString(j.Y)
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return key{}, false
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return key{}, false
		}
		k.alg, k.pub = algES256, pub
	case j.Kty == "OKP" && j.Crv == "Ed25519":
		x, err := b64.DecodeString(j.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return key{}, false
		}
		k.alg, k.pub = algEdDSA, ed25519.PublicKey(x)
	default:
		return key{}, false
	}
	if j.Alg != "" && algorithmOf(j.Alg) != k.alg {
		return key{}, false // e.g. an RSA key for PS256 or RS384
	}
	return k, true
}
