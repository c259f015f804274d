// Package httpc is the HTTP/1.1 that package client speaks: POSTs on a
// pool of keep-alive connections (Client) and the WebSocket opening
// handshake (DialWebSocket). It is written on net and crypto/tls alone, so
// that a program which dials only TCP or stdio with package client links
// no HTTP library (neither fasthttp nor net/http), and one that dials HTTP
// links this small package only.
//
// It does what the client needs and no more: one URL per Client, requests
// with a body, responses framed by Content-Length, chunked or the end of
// the connection, TLS through crypto/tls, deadlines, and no redirects,
// proxies, cookies or compression.
package httpc
