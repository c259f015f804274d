package nethttp_test

import "testing"

// Handler in a net/http server runs every HTTP suite; see
// http_suite_test.go.

func TestHTTPHandlerVectors(t *testing.T)    { httpSuiteVectors(t, startStdHTTP) }
func TestHTTPHandlerTooLarge(t *testing.T)   { httpSuiteTooLarge(t, startStdHTTP) }
func TestHTTPHandlerMethods(t *testing.T)    { httpSuiteMethods(t, startStdHTTP) }
func TestHTTPHandlerSlowCall(t *testing.T)   { httpSuiteSlowCall(t, startStdHTTP) }
func TestHTTPHandlerPanic(t *testing.T)      { httpSuitePanic(t, startStdHTTP) }
func TestHTTPHandlerConcurrent(t *testing.T) { httpSuiteConcurrent(t, startStdHTTP) }
func TestHTTPHandlerShutdown(t *testing.T)   { httpSuiteShutdown(t, startStdHTTP) }
func TestHTTPHandlerExpect(t *testing.T)     { httpSuiteExpect(t, startStdHTTP) }
