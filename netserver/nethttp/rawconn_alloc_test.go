//go:build unix && !race

package nethttp

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestRawConnAllocs: a call over a keep-alive TCP connection, read and
// written with raw system calls, allocates nothing in the whole process
// (client, fasthttp and the server) once warm.
func TestRawConnAllocs(t *testing.T) {
	dial, _ := rawServer(t, "tcp", netserver.Options{})
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	req := []byte(postReq(rawCall))
	// The first answer, read by net/http, tells the length of each.
	cr := &countReader{r: c}
	rd := bufio.NewReader(cr)
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(body) != rawAnswer || rd.Buffered() != 0 {
		t.Fatalf("%d %s (%d bytes buffered)", resp.StatusCode, body, rd.Buffered())
	}
	buf := make([]byte, cr.n)
	run := func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		run()
	}
	if string(buf[len(buf)-len(rawAnswer):]) != rawAnswer {
		t.Fatalf("answer %q", buf)
	}
	if n := testing.AllocsPerRun(500, run); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}
