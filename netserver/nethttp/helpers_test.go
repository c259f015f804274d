package nethttp

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
)

// The helpers shared with netserver's tests (internal/servertest).
const testTimeout = servertest.Timeout

var quiet = servertest.Quiet

const wsSubtract = servertest.Subtract

type engineSetup = servertest.EngineSetup

var (
	checkGoroutines = servertest.CheckGoroutines
	withMethod      = servertest.WithMethod
	expectResult    = servertest.ExpectResult
	expectError     = servertest.ExpectError
	waitFor         = servertest.WaitFor
	dialWS          = servertest.DialWS
	wsSend          = servertest.WSSend
	wsRecv          = servertest.WSRecv
	wsExpectClose   = servertest.WSExpectClose
	countStarts     = servertest.CountStarts
	decodeResponse  = servertest.DecodeResponse
)

// The authentication harness shared with netserver's tests.
const aliceToken = servertest.AliceToken

var (
	testAuth  = servertest.TestAuth
	signJWT   = servertest.SignJWT
	authSetup = servertest.AuthSetup
)

// newEngine returns an engine with the demo methods, then setup.
func newEngine(t testing.TB, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	return newEngineWith(t, dispatch.Options{}, setup...)
}

// newEngineWith is newEngine with the engine's options (Logger: quiet).
func newEngineWith(t testing.TB, opts dispatch.Options, setup ...engineSetup) *dispatch.Engine {
	t.Helper()
	return servertest.NewEngine(t, opts, append([]engineSetup{demo.Register}, setup...)...)
}
