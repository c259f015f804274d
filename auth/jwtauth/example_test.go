package jwtauth_test

import (
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/jwtauth"
)

// A client signs a fresh HS256 token with the shared secret for each
// request, as go-ethereum's engine API clients do; the server checks the
// signature and that iat lies within a minute of its clock.
func Example() {
	secret, err := jwtauth.ParseSecret("0x" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	if err != nil {
		panic(err)
	}
	a, err := jwtauth.New(secret, nil)
	if err != nil {
		panic(err)
	}
	sign := func(iat time.Time) []byte {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iat": iat.Unix(), "sub": "beacon"}).
			SignedString(secret)
		if err != nil {
			panic(err)
		}
		return []byte(s)
	}
	id, err := a.Authenticate(&auth.Request{Transport: "http", Token: sign(time.Now())})
	fmt.Println(id.Name, id.Scheme, err)
	_, err = a.Authenticate(&auth.Request{Transport: "http", Token: sign(time.Now().Add(-2 * time.Minute))})
	fmt.Println(auth.Reason(err))
	// Output:
	// beacon jwt <nil>
	// stale token
}
