package client_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// TestHTTPGzip: DialHTTP asks for gzip and reads gzip answers; an answer
// that inflates past MaxMessage fails its call, not the client.
func TestHTTPGzip(t *testing.T) {
	checkGoroutines(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		result := `"plain"`
		if r.Header.Get("Accept-Encoding") == "gzip" {
			result = `"gzip"`
		}
		if req.Method == "bomb" {
			result = `"` + string(make([]byte, 8<<20)) + `"` // zeros: 8 MiB in 8 KiB
		}
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		zw.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`))
		zw.Close()
		if r.Header.Get("Accept-Encoding") != "gzip" {
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(out.Bytes())
	}))
	defer srv.Close()
	c, err := client.DialHTTP(srv.URL, testOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := c.CallRaw(ctx, nil, "m", nil)
	if err != nil || string(got) != `"gzip"` {
		t.Fatalf("CallRaw: %s %v, want the gzip answer", got, err)
	}
	if _, err = c.CallRaw(ctx, nil, "bomb", nil); !errors.Is(err, client.ErrResponseTooLarge) {
		t.Fatalf("bomb: %v, want client.ErrResponseTooLarge", err)
	}
	if got, err = c.CallRaw(ctx, nil, "m", nil); err != nil || string(got) != `"gzip"` {
		t.Fatalf("after the bomb: %s %v", got, err)
	}
	plain, err := client.DialHTTP(srv.URL, testOptions(&client.Options{CompressMin: -1}))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, plain)
	if got, err = plain.CallRaw(ctx, nil, "m", nil); err != nil || string(got) != `"plain"` {
		t.Fatalf("CompressMin -1: %s %v, want the plain answer (no Accept-Encoding)", got, err)
	}
	if _, err = plain.CallRaw(ctx, nil, "bomb", nil); !errors.Is(err, client.ErrResponseTooLarge) {
		t.Fatalf("8 MiB plain answer: %v, want client.ErrResponseTooLarge", err)
	}
	if got, err = plain.CallRaw(ctx, nil, "m", nil); err != nil || string(got) != `"plain"` {
		t.Fatalf("after the large plain answer: %s %v", got, err)
	}
}
