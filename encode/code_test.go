package encode_test

import (
	"errors"
	"testing"

	"github.com/jetrpc/jetrpc/encode"
)

func TestCodeString(t *testing.T) {
	f := func(c encode.Code, want string) {
		t.Helper()
		if got := c.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", c, got, want)
		}
	}
	f(encode.CodeParseError, "Parse error")
	f(encode.CodeInvalidRequest, "Invalid Request")
	f(encode.CodeMethodNotFound, "Method not found")
	f(encode.CodeInvalidParams, "Invalid params")
	f(encode.CodeInternalError, "Internal error")
	f(encode.CodeServerError, "Server error")
	f(encode.CodeOverloaded, "Server overloaded")
	f(encode.CodeShuttingDown, "Server shutting down")
	f(encode.CodeTimeout, "Request timed out")
	f(encode.CodeLimitExceeded, "Limit exceeded")
	f(encode.CodeUnauthorized, "Unauthorized")
	f(encode.CodeForbidden, "Forbidden")
	f(-32004, "Server error")
	f(-32050, "Server error")
	f(-32099, "Server error")
	f(-32100, "Error")
	f(-31999, "Error")
	f(0, "Error")
	f(42, "Error")
}

func TestCodeErr(t *testing.T) {
	f := func(c encode.Code, wantMsg string, shared bool) {
		t.Helper()
		err := c.Err()
		var e *encode.Error
		if !errors.As(err, &e) {
			t.Fatalf("Code(%d).Err() = %T, want *encode.Error", c, err)
		}
		if e.Code != c || e.Message != wantMsg || e.Data != nil {
			t.Errorf("Code(%d).Err() = %+v", c, e)
		}
		if same := c.Err() == err; same != shared {
			t.Errorf("Code(%d).Err() shared = %v, want %v", c, same, shared)
		}
	}
	f(encode.CodeParseError, "Parse error", true)
	f(encode.CodeInvalidRequest, "Invalid Request", true)
	f(encode.CodeMethodNotFound, "Method not found", true)
	f(encode.CodeInvalidParams, "Invalid params", true)
	f(encode.CodeInternalError, "Internal error", true)
	f(encode.CodeServerError, "Server error", true)
	f(encode.CodeOverloaded, "Server overloaded", true)
	f(encode.CodeShuttingDown, "Server shutting down", true)
	f(encode.CodeTimeout, "Request timed out", true)
	f(encode.CodeLimitExceeded, "Limit exceeded", true)
	f(encode.CodeUnauthorized, "Unauthorized", true)
	f(encode.CodeForbidden, "Forbidden", true)
	f(-32050, "Server error", false)
	f(7, "Error", false)
}

func TestErrorString(t *testing.T) {
	f := func(e *encode.Error, want string) {
		t.Helper()
		if got := e.Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
	f(encode.NewError(encode.CodeInvalidParams, "", nil), "jsonrpc: code -32602: Invalid params")
	f(encode.NewError(encode.CodeInvalidParams, "want two numbers", nil), "jsonrpc: code -32602: want two numbers")
	f(encode.NewError(1234567, "app", []byte(`{"x":1}`)), "jsonrpc: code 1234567: app")
	f(encode.NewError(-2147483648, "min", nil), "jsonrpc: code -2147483648: min")
	if got := encode.CodeTimeout.Err().Error(); got != "jsonrpc: code -32003: Request timed out" {
		t.Errorf("CodeTimeout.Err().Error() = %q", got)
	}
}

func TestErrorIs(t *testing.T) {
	f := func(err, target error, want bool) {
		t.Helper()
		if got := errors.Is(err, target); got != want {
			t.Errorf("errors.Is(%v, %v) = %v, want %v", err, target, got, want)
		}
	}
	f(encode.NewError(-32602, "x", nil), encode.CodeInvalidParams.Err(), true)
	f(encode.NewError(-32602, "x", []byte(`1`)), encode.NewError(-32602, "y", nil), true)
	f(encode.NewError(-32602, "x", nil), encode.CodeInternalError.Err(), false)
	f(encode.NewError(5, "x", nil), encode.NewError(5, "other", nil), true)
	f(encode.NewError(5, "x", nil), errors.New("jsonrpc: code 5: x"), false)
	f(encode.NewError(5, "x", nil), (*encode.Error)(nil), false)
	wrapped := errors.Join(errors.New("context"), encode.NewError(encode.CodeTimeout, "slow", nil))
	f(wrapped, encode.CodeTimeout.Err(), true)
	f(wrapped, encode.CodeOverloaded.Err(), false)
}
