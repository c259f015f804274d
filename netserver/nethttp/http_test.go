package nethttp_test

import "testing"

// The HTTPServer (fasthttp) runs every HTTP suite; see http_suite_test.go.

func TestHTTPVectors(t *testing.T)         { httpSuiteVectors(t, startFastHTTP) }
func TestHTTPTooLarge(t *testing.T)        { httpSuiteTooLarge(t, startFastHTTP) }
func TestHTTPMethods(t *testing.T)         { httpSuiteMethods(t, startFastHTTP) }
func TestHTTPSlowCall(t *testing.T)        { httpSuiteSlowCall(t, startFastHTTP) }
func TestHTTPPanic(t *testing.T)           { httpSuitePanic(t, startFastHTTP) }
func TestHTTPConcurrent(t *testing.T)      { httpSuiteConcurrent(t, startFastHTTP) }
func TestHTTPShutdown(t *testing.T)        { httpSuiteShutdown(t, startFastHTTP) }
func TestHTTPShutdownTimeout(t *testing.T) { httpSuiteShutdownTimeout(t, startFastHTTP) }
func TestHTTPExpect(t *testing.T)          { httpSuiteExpect(t, startFastHTTP) }
