package oauth

// NOTE: the Validator's paths. Authenticate hashes the token (maphash)
// and looks it up in the cache (cache.go): a hit whose deadline has
// not passed returns the identity made the first time, with no allocation.
// A miss goes to validate: a token shaped like a JWT is verified here
// (jwt.go) with its issuer's keys (keys.go: discovery, JWKS, refresh), an
// opaque one is sent to the introspection endpoint (introspect.go); a
// token that passes is cached until it expires (an introspected one for
// at most Introspection.TTL).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jetrpc/jetrpc/auth"
)

// Defaults of Options.
const (
	DefaultLeeway          = 60 * time.Second
	DefaultRefreshInterval = 30 * time.Second
	DefaultKeysMaxAge      = time.Hour
	DefaultCacheSize       = 10000
	DefaultIntrospectTTL   = 60 * time.Second
	DefaultFetchTimeout    = 10 * time.Second
)

// Options tune a Validator; nil means the defaults.
type Options struct {
	// Introspection, when set, is where opaque tokens (those that are not
	// JWTs) are checked (RFC 7662); without it they are refused.
	Introspection *Introspection
	// Leeway is the clock skew allowed for exp, nbf and iat (default
	// DefaultLeeway, 60 s).
	Leeway time.Duration
	// RefreshInterval is how long after fetching an issuer's keys (or
	// failing to) a JWT with an unknown kid may make the Validator fetch
	// them again (default DefaultRefreshInterval, 30 s): until then such a
	// token is refused without asking the issuer.
	RefreshInterval time.Duration
	// KeysMaxAge is how long an issuer's keys are used before they are
	// fetched again, so that keys the issuer withdrew stop being accepted
	// (default DefaultKeysMaxAge, an hour). One request refreshes them
	// while the others go on with the keys held.
	KeysMaxAge time.Duration
	// CacheSize bounds the number of validated tokens remembered (default
	// DefaultCacheSize).
	CacheSize int
	// Client fetches metadata, keys and introspection answers (default: an
	// http.Client of its own, which follows a redirect only to https or to
	// http on loopback). Each request is bounded by FetchTimeout.
	Client *http.Client
	// FetchTimeout bounds each request to an authorization server
	// (default DefaultFetchTimeout, 10 s).
	FetchTimeout time.Duration
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
}

// Introspection configures the token introspection endpoint (RFC 7662)
// and this resource server's credentials at it, sent as HTTP Basic
// authentication (client_secret_basic).
type Introspection struct {
	// URL is the introspection endpoint.
	URL string
	// ClientID and ClientSecret are this resource server's credentials.
	ClientID, ClientSecret string
	// TTL bounds how long an answer is cached: a token is asked about
	// again after TTL, or when it expires if sooner (default
	// DefaultIntrospectTTL, 60 s).
	TTL time.Duration
}

// Validator checks OAuth 2.1 access tokens for one protected resource:
// an [auth.Authenticator] whose identities carry a [*Token]. Create it with
// New; it is safe for concurrent use.
type Validator struct {
	resource string
	issuers  map[string]*issuer
	intro    *Introspection
	leeway   time.Duration
	refresh  time.Duration
	maxAge   time.Duration
	timeout  time.Duration
	client   *http.Client
	now      func() time.Time
	cache    cache
}

var _ auth.Authenticator = (*Validator)(nil)

// New returns a Validator that accepts tokens for resource (its canonical
// URI, which a token's audience must contain) issued by issuers (the
// authorization servers' issuer identifiers, which a JWT's iss must equal;
// their keys are found through their metadata). issuers may be empty when
// opts.Introspection is set: every token is then introspected.
func New(resource string, issuers []string, opts *Options) (*Validator, error) {
	uri, err := CanonicalURI(resource)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &Options{}
	}
	v := &Validator{
		resource: uri,
		issuers:  make(map[string]*issuer, len(issuers)),
		intro:    opts.Introspection,
		leeway:   orDefault(opts.Leeway, DefaultLeeway),
		refresh:  orDefault(opts.RefreshInterval, DefaultRefreshInterval),
		maxAge:   orDefault(opts.KeysMaxAge, DefaultKeysMaxAge),
		timeout:  orDefault(opts.FetchTimeout, DefaultFetchTimeout),
		client:   opts.Client,
		now:      opts.Now,
	}
	if v.client == nil {
		v.client = &http.Client{CheckRedirect: checkRedirect}
	}
	if v.now == nil {
		v.now = time.Now
	}
	size := opts.CacheSize
	if size <= 0 {
		size = DefaultCacheSize
	}
	v.cache.init(size)
	for _, iss := range issuers {
		if err := checkFetchURL(iss); err != nil {
			return nil, fmt.Errorf("oauth: issuer: %v", err)
		}
		v.issuers[iss] = &issuer{id: iss, v: v}
	}
	if in := v.intro; in != nil {
		if err := checkFetchURL(in.URL); err != nil {
			return nil, fmt.Errorf("oauth: introspection endpoint: %v", err)
		}
	}
	if len(v.issuers) == 0 && v.intro == nil {
		return nil, errors.New("oauth: a validator needs an issuer or an introspection endpoint")
	}
	return v, nil
}

// checkRedirect follows at most 5 redirects, each to a URL checkFetchURL
// allows.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	return checkFetchURL(req.URL.String())
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Resource returns the canonical URI tokens must be for.
func (v *Validator) Resource() string { return v.resource }

// Authenticate validates r.Token (ErrNoCredentials without one); see
// Validate.
func (v *Validator) Authenticate(r *auth.Request) (*auth.Identity, error) {
	if len(r.Token) == 0 {
		return nil, auth.ErrNoCredentials
	}
	return v.Validate(r.Token)
}

// Validate checks an access token and returns its identity: Name the
// token's subject (else its client id, else "oauth"), Scheme "oauth",
// Until when the token stops being accepted (its exp plus the leeway; for
// an introspected token at most Introspection.TTL from now), Attrs the
// [*Token]. Every request presenting the same token within Until gets the
// same *auth.Identity, from the cache, without allocating. A refused token
// gets one of the package's Err values (an *auth.Error).
func (v *Validator) Validate(token []byte) (*auth.Identity, error) {
	now := v.now()
	id, h := v.cache.get(token, now)
	if id != nil {
		return id, nil
	}
	return v.validate(token, h, now)
}

// validate checks a token the cache does not hold and caches it.
func (v *Validator) validate(token []byte, h uint64, now time.Time) (*auth.Identity, error) {
	var (
		t     *Token
		until time.Time
		err   error
	)
	switch {
	case looksLikeJWT(token) && len(v.issuers) > 0:
		t, until, err = v.verifyJWT(token, now)
	case v.intro != nil:
		t, until, err = v.introspect(token, now)
	default:
		err = ErrMalformed
	}
	if err != nil {
		return nil, err
	}
	name := t.Subject
	if name == "" {
		name = t.ClientID
	}
	if name == "" {
		name = Scheme
	}
	id := &auth.Identity{Name: name, Scheme: Scheme, Until: until, Attrs: t}
	v.cache.put(h, token, id, now)
	return id, nil
}

// Discover fetches the metadata and keys of every issuer now, rather than
// when the first token arrives; it returns the first failure. Calling it
// at start-up takes the discovery out of the first request's time.
func (v *Validator) Discover(ctx context.Context) error {
	var first error
	for _, is := range v.issuers {
		if err := is.prefetch(ctx); err != nil && first == nil {
			first = fmt.Errorf("oauth: issuer %s: %w", is.id, err)
		}
	}
	return first
}

// audienceOK reports whether aud contains the resource.
func (v *Validator) audienceOK(aud []string) bool {
	for _, a := range aud {
		if a == v.resource {
			return true
		}
	}
	return false
}

// checkTimes checks exp, nbf and iat (zero: absent) against now with the
// leeway and returns the deadline to accept the token until.
func (v *Validator) checkTimes(exp, nbf, iat, now time.Time) (time.Time, error) {
	var until time.Time
	if !exp.IsZero() {
		until = exp.Add(v.leeway)
		if !now.Before(until) {
			return until, ErrExpired
		}
	}
	if !nbf.IsZero() && nbf.After(now.Add(v.leeway)) {
		return until, ErrNotYet
	}
	if !iat.IsZero() && iat.After(now.Add(v.leeway)) {
		return until, ErrNotYet
	}
	return until, nil
}
