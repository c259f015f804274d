package main

// NOTE: the replica flags of jetrpc serve --mcp (#15). Replicas that share
// --mcp-store and --mcp-key take over each other's sessions: a request or a
// resume naming a session that another replica opened is served from the
// store (package mcphttp's adopt.go). --mcp-instance is the first part of the
// session ids this replica mints, which a load balancer routes on
// (deploy/haproxy.cfg).

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
)

type mcpReplicaFlags struct {
	url      string // --mcp-store
	keyFile  string // --mcp-key
	instance string // --mcp-instance

	store streamstore.Store   // nil: the default MemoryStore
	ids   *mcphttp.SessionIDs // nil: a random tag and key
	close func()
}

func (f *mcpReplicaFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "mcp-store", "memory", "where MCP sessions and their event streams are kept: memory (this process), or\n"+
		"nats://HOST:PORT[,nats://...] (NATS JetStream, shared by the replicas; needs --mcp-key)")
	fs.StringVar(&f.keyFile, "mcp-key", "", "sign MCP session ids with the hex-encoded key (16 bytes or more) in `FILE`, the same on every replica\n"+
		"(default: a random key; ids then verify on this process only)")
	fs.StringVar(&f.instance, "mcp-instance", "", "this replica's `TAG` (1 to 32 of [A-Za-z0-9_-]): the part of Mcp-Session-Id before the dot,\n"+
		"which a load balancer routes on (default: random)")
}

// check validates the flags, reads the key and connects to the store.
func (f *mcpReplicaFlags) check(on bool) error {
	var key []byte
	if f.keyFile != "" {
		b, err := os.ReadFile(f.keyFile)
		if err != nil {
			return fmt.Errorf("--mcp-key %s: %v", f.keyFile, trimPath(err, f.keyFile))
		}
		key, err = hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(key) < 16 {
			return fmt.Errorf("--mcp-key %s: the key must be 16 bytes or more in hex", f.keyFile)
		}
	}
	shared := f.url != "" && f.url != "memory"
	if shared && !strings.HasPrefix(f.url, "nats://") && !strings.HasPrefix(f.url, "tls://") {
		return fmt.Errorf("--mcp-store %s: memory, or nats://HOST:PORT", f.url)
	}
	if shared && key == nil {
		return errors.New("--mcp-store: the replicas must share --mcp-key to verify each other's session ids")
	}
	if !on {
		return nil
	}
	ids, err := mcphttp.NewSessionIDs(f.instance, key)
	if err != nil {
		return fmt.Errorf("--mcp-instance %q: %v", f.instance, err)
	}
	f.ids = ids
	if !shared {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := natsstore.Connect(ctx, f.url, nil)
	if err != nil {
		return fmt.Errorf("--mcp-store %s: %v", f.url, err)
	}
	f.store, f.close = s, s.Close
	return nil
}
