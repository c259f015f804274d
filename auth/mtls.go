package auth

// ClientCert returns an Authenticator that takes the identity of a
// client certificate that the TLS handshake verified (mTLS: a server whose
// tls.Config verifies client certificates): its Name is the certificate's
// subject common name, or the whole subject ("CN=...,O=...") when it has
// none; Scheme "mtls"; Attrs the certificate (*x509.Certificate).
// Without TLS, or without a verified certificate (none sent, or one the
// server only requested), it answers ErrNoCredentials.
func ClientCert() Authenticator { return Func(clientCert) }

func clientCert(r *Request) (*Identity, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.PeerCertificates) == 0 {
		return nil, ErrNoCredentials
	}
	leaf := r.TLS.PeerCertificates[0]
	name := leaf.Subject.CommonName
	if name == "" {
		name = leaf.Subject.String()
	}
	return &Identity{Name: name, Scheme: "mtls", Until: Forever, Attrs: leaf}, nil
}
