// Package httpz is HTTP content coding for jetrpc's HTTP servers and
// clients, written once: the Accept-Encoding negotiation (Negotiate),
// pooled gzip and deflate compressors (Append for a whole body, Writer for
// a stream flushed per event) and a bounded inflater for request and
// response bodies (Inflate, InflateFrom) that stops at a limit without
// inflating the rest.
//
// "deflate" is the HTTP content coding of RFC 9110 section 8.4.1.2: a
// zlib stream (RFC 1950). Inflate also takes a raw deflate stream under
// that name, as browsers do, since some senders use one.
package httpz
