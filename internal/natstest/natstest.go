// Package natstest runs a real NATS server with JetStream inside a test
// process (nats-server/v2, embedded), on a free loopback port, so that the
// tests of natsstore and of replicas sharing it need nothing installed.
// Only tests import it (it is internal: a program that links a store
// never links nats-server).
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start runs a NATS server with JetStream (its files in a temporary
// directory) until the test ends, and returns its client URL.
func Start(t testing.TB) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		t.Fatal("natstest: the NATS server did not start within 10 s")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}
