package client

// NOTE: credentials. Static header lines (Options.Header) are checked
// once and sent with every HTTP request and WebSocket handshake; the
// Token hook is asked for each of them, and over a stream for the
// rpc.authenticate call that opens each connection (authenticate, below,
// before the connection is handed to its reader).

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/jwtmint"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// TokenFunc appends a credential (a bearer token) to dst and returns the
// extended slice; ctx is the call's, or the dial's for a handshake. It is
// called for every request, handshake and connection, from many
// goroutines at once. See Options.Token.
type TokenFunc func(ctx context.Context, dst []byte) ([]byte, error)

// BearerToken returns a TokenFunc that always gives token: a static bearer
// token, such as one of a jetrpc server's --tokens file or a node
// provider's API key.
func BearerToken(token string) TokenFunc {
	return func(_ context.Context, dst []byte) ([]byte, error) { return append(dst, token...), nil }
}

// JWT returns a TokenFunc that gives an HS256 JSON Web Token signed with
// secret (32 bytes) whose only claim, iat, is the current time: the
// credential of go-ethereum's engine API (its node.NewJWTAuth) and of a
// jetrpc server started with --jwt-secret, which accept an iat within 60
// seconds of their clock. A token is made at most once a second and
// reused within it, so minting costs no allocation.
func JWT(secret []byte) (TokenFunc, error) {
	m, err := jwtmint.New(secret)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, dst []byte) ([]byte, error) { return m.Append(dst, time.Now()), nil }, nil
}

// LoadJWTSecret reads a JWT secret file as go-ethereum's
// --authrpc.jwtsecret does: 32 bytes hex-encoded, 0x optional,
// surrounding whitespace ignored.
func LoadJWTSecret(path string) ([]byte, error) { return jwtmint.LoadSecret(path) }

// ErrUnauthenticated is wrapped by the error of a Dial or NewStdio whose
// rpc.authenticate call (Options.Token) the server refused; the error also
// wraps the server's *encode.Error (-32006 Unauthorized, with its reason
// as data: "stale token", "invalid token"). Over HTTP a refused credential
// is an *HTTPError with status 401, over WebSocket a handshake error
// (ErrBadHandshake) with status 401; both carry the server's message.
var ErrUnauthenticated = errors.New("client: the server refused the credential")

// headerLines checks header lines "Name: value" and returns them as HTTP
// wants them, each ending in CRLF.
func headerLines(lines []string) (string, error) {
	var b strings.Builder
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(l, "\r\n") || strings.ContainsAny(name, " \t") {
			return "", errors.New(`client: header line ` + quote(l) + `: want "Name: value"`)
		}
		b.WriteString(name + ": " + strings.TrimSpace(value) + "\r\n")
	}
	return b.String(), nil
}

func quote(s string) string { return string(encode.AppendString(nil, s)) }

// appendAuthHeader appends the Authorization line of the Token hook to
// hdr, if the client has one.
func (c *Client) appendAuthHeader(ctx context.Context, hdr []byte) ([]byte, error) {
	if c.token == nil {
		return hdr, nil
	}
	return appendBearer(ctx, c.token, hdr)
}

func appendBearer(ctx context.Context, token TokenFunc, hdr []byte) ([]byte, error) {
	start := len(hdr)
	hdr = append(hdr, "Authorization: Bearer "...)
	hdr, err := token(ctx, hdr)
	if err != nil {
		return hdr[:start], err
	}
	return append(hdr, "\r\n"...), nil
}

// authID is the id of the rpc.authenticate call; calls count from 1.
var authID = []byte("0")

// authenticate sends rpc.authenticate with the token as the first message
// on a stream and reads its answer from fr, all within ctx (the stream's
// deadlines, when it takes them).
func authenticate(ctx context.Context, rw deadlineReadWriter, fr *frame.Reader, kind frame.Kind, token TokenFunc) error {
	var tok []byte
	tok, err := token(ctx, tok)
	if err != nil {
		return err
	}
	params := encode.AppendString(append([]byte(nil), `{"token":`...), string(tok))
	params = append(params, '}')
	b, mark := frame.BeginFrame(nil, kind)
	b = encode.AppendRequest(b, authID, "rpc.authenticate", params)
	b = frame.EndFrame(b, kind, mark)
	if dl, ok := ctx.Deadline(); ok {
		rw.SetDeadline(dl)
		defer rw.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { rw.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := rw.Write(b); err != nil {
		return err
	}
	msg, err := fr.Next()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New("client: rpc.authenticate: the server closed the connection: " + err.Error())
	}
	var p decode.Parser
	m, err := p.Parse(msg)
	switch {
	case err != nil || m.Kind != decode.Result && m.Kind != decode.ErrorResponse:
		return errors.New("client: rpc.authenticate: unexpected answer " + clipText(msg))
	case m.Kind == decode.ErrorResponse:
		return &authError{rpcmsg.ParseError(m.Error)}
	}
	return nil
}

// authError is the error of a refused rpc.authenticate.
type authError struct{ err error }

func (e *authError) Error() string {
	s := ErrUnauthenticated.Error() + ": " + e.err.Error()
	var re *encode.Error
	if errors.As(e.err, &re) && len(re.Data) > 0 {
		s += " (" + clipText(re.Data) + ")"
	}
	return s
}
func (e *authError) Unwrap() []error { return []error{ErrUnauthenticated, e.err} }

// deadlineReadWriter is a stream that takes deadlines (a net.Conn, the
// pipes of NewStdio).
type deadlineReadWriter interface {
	Read(b []byte) (int, error)
	Write(b []byte) (int, error)
	SetDeadline(t time.Time) error
}

func clipText(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.ToValidUTF8(string(b), "?")
}
