package guard

import "testing"

func TestOriginPolicyAllow(t *testing.T) {
	p, err := ParseOriginPolicy("https://app.example.com, http://localhost:3000,https://x.test:443")
	if err != nil {
		t.Fatal(err)
	}
	f := func(p *OriginPolicy, origin, host string, want bool) {
		t.Helper()
		if got := p.Allow(origin, host); got != want {
			t.Errorf("Allow(%q, %q) = %v, want %v", origin, host, got, want)
		}
	}
	f(p, "", "127.0.0.1:8080", true) // not a browser
	f(p, "https://app.example.com", "api.example.com", true)
	f(p, "HTTPS://APP.EXAMPLE.COM", "api.example.com", true)
	f(p, "https://app.example.com:443", "api.example.com", true)
	f(p, "http://app.example.com", "api.example.com", false) // another scheme
	f(p, "http://localhost:3000", "127.0.0.1:8080", true)
	f(p, "http://localhost:3001", "127.0.0.1:8080", false)
	f(p, "https://x.test", "y", true)
	f(p, "https://evil.example", "127.0.0.1:8080", false)
	f(p, "null", "127.0.0.1:8080", false)
	f(p, "http://127.0.0.1:8080", "127.0.0.1:8080", true) // the page the server served
	f(p, "http://localhost:8080", "LOCALHOST:8080", true)
	f(p, "http://example.com", "example.com:80", true)
	f(p, "https://example.com:443", "example.com", true)
	f(p, "http://example.com:8080", "example.com", false)
	f(p, "garbage", "garbage", false)
	f(p, "http://", "", false)
	f(nil, "", "h", true)
	f(nil, "http://h:1", "h:1", true)
	f(nil, "http://other:1", "h:1", false)
	f(nil, "null", "h", false)

	any, _ := NewOriginPolicy("*")
	f(any, "https://evil.example", "h", true)
	f(any, "null", "h", true)
	null, _ := NewOriginPolicy("null")
	f(null, "null", "h", true)
	f(null, "https://evil.example", "h", false)

	for _, bad := range []string{"example.com", "http://a.b/path", "http://a.b?q", "http://u@a.b", "ftp:"} {
		if _, err := NewOriginPolicy(bad); err == nil {
			t.Errorf("NewOriginPolicy(%q) accepted", bad)
		}
	}
}
