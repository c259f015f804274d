// Command tcponly is a client user who dials TCP only: TestLinksNoHTTP
// lists what it links.
package main

import (
	"context"

	"github.com/jetrpc/jetrpc/client"
)

func main() {
	c, err := client.Dial(context.Background(), "tcp", "127.0.0.1:7070", nil)
	if err != nil {
		return
	}
	defer c.Close()
	c.CallRaw(context.Background(), nil, "subtract", []byte(`[42,23]`))
}
