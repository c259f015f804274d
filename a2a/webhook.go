package a2a

// NOTE: the SSRF guard of push notifications. A webhook URL is a client's
// word for where this server will send requests, so by default it may
// not name this host or its private networks: a config whose URL is not
// http(s), or whose host is or resolves to a loopback, private, link-local,
// multicast or unspecified address, is refused (-32602) when it is set;
// and the Pusher checks the address of every connection it makes again,
// just before it connects, so that neither a name that resolves elsewhere
// by then (DNS rebinding) nor a redirect gets round the first check.
// Options.AllowPrivateWebhooks (jetrpc serve --a2a-allow-private-webhooks)
// and PusherOptions.AllowPrivate lift it, for webhooks on the same host or
// network.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// blockedAddr reports whether a webhook may not be reached at a.
func blockedAddr(a netip.Addr) bool {
	a = a.Unmap()
	return !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		(a.Is4() && (a.As4()[0] == 0 || a == netip.AddrFrom4([4]byte{255, 255, 255, 255})))
}

// errBlocked is a connection the guard refused.
var errBlocked = errors.New("a2a: push notifications may not reach a loopback, private, link-local, multicast or unspecified address")

// lookupFunc resolves a host name.
type lookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

func systemLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// checkWebhook checks a webhook URL when a config is set: "" when it may
// be used, else the problem. A name that does not resolve now passes (it
// may later; the dial-time check still applies).
func checkWebhook(ctx context.Context, lookup lookupFunc, raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return "must be an absolute http or https URL"
	}
	if allowPrivate {
		return ""
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if blockedAddr(a) {
			return "names a loopback, private, link-local, multicast or unspecified address (" + host + ")"
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := lookup(ctx, host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if blockedAddr(a) {
			return "resolves to a loopback, private, link-local, multicast or unspecified address (" + host + " is " + a.Unmap().String() + ")"
		}
	}
	return ""
}

// guardedClient returns a client whose connections are checked: c's own
// settings with a transport that refuses blocked addresses as it dials
// (c's transport must be an *http.Transport or nil; another is used as it
// is) and no proxy. exempt, when set, lets the addresses it names through
// (tests).
func guardedClient(c *http.Client, exempt func(netip.AddrPort) bool) *http.Client {
	gc := *c
	var tr *http.Transport
	switch t := c.Transport.(type) {
	case nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		tr = t.Clone()
	default:
		return &gc
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || (blockedAddr(ap.Addr()) && (exempt == nil || !exempt(ap))) {
				return errBlocked
			}
			return nil
		}}
	tr.Proxy = nil // the guard checks the webhook's address, not a proxy's
	tr.DialContext = d.DialContext
	tr.DialTLSContext = nil
	gc.Transport = tr
	return &gc
}
