// Package mcpdemo holds what jetrpc serve --mcp serves, written with
// package mcp's public API. Register adds the demo tools, echo {text}, add
// {a,b} and countdown {n}; RegisterConformance adds the fixtures of the
// official MCP conformance suite (tools named test_*, greet, slow_compute
// and others, resources and prompts), which the suite and outside tests
// expect from plain jetrpc serve --mcp. Registered in that order, the demo
// tools come first in tools/list.
package mcpdemo

import (
	"context"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
)

// EchoIn is echo's input.
type EchoIn struct {
	Text string `json:"text" description:"the text to return"`
}

// AddIn is add's input.
type AddIn struct {
	A float64 `json:"a" description:"the first addend"`
	B float64 `json:"b" description:"the second addend"`
}

// AddOut is add's structured result.
type AddOut struct {
	Sum float64 `json:"sum" description:"a + b"`
}

// CountdownIn is countdown's input.
type CountdownIn struct {
	N          int `json:"n" description:"how many progress notifications to send (0 to 10000)"`
	IntervalMs int `json:"intervalMs,omitempty" description:"milliseconds to wait after each notification (0 to 10000; default 0)"`
	CutAfter   int `json:"cutAfter,omitempty" description:"for tests of resumption: after that many notifications the server closes the event stream's connection once, and the client resumes it with Last-Event-ID (2025-11-25 sessions)"`
}

// Limits of countdown's input.
const (
	MaxCountdown = 10000
	MaxInterval  = 10000
)

// Register adds the demo tools to s.
func Register(s *mcp.Server) error {
	echo := mcp.NewTool("echo", "Returns the text it is given.", func(_ context.Context, in EchoIn) (*mcp.Result, error) {
		return mcp.TextResult(in.Text), nil
	})
	echo.Inline = true
	add := mcp.NewStructuredTool("add", "Adds a and b: the sum as text and as structured content.",
		func(_ context.Context, in AddIn) (AddOut, error) { return AddOut{Sum: in.A + in.B}, nil })
	add.Inline = true
	countdown := mcp.NewTool("countdown",
		"Sends n progress notifications (when the call carries _meta.progressToken), then returns the text done.", Countdown)
	for _, t := range []*mcp.Tool{echo, add, countdown} {
		if err := s.AddTool(t); err != nil {
			return err
		}
	}
	return nil
}

// Countdown is the countdown tool's handler.
func Countdown(ctx context.Context, in CountdownIn) (*mcp.Result, error) {
	if in.N < 0 || in.N > MaxCountdown || in.IntervalMs < 0 || in.IntervalMs > MaxInterval {
		return mcp.ErrorResult("n must be 0 to " + strconv.Itoa(MaxCountdown) + " and intervalMs 0 to " + strconv.Itoa(MaxInterval)), nil
	}
	var t *time.Timer
	for i := 1; i <= in.N; i++ {
		if err := mcp.Progress(ctx, float64(i), float64(in.N), strconv.Itoa(in.N-i)+" to go"); err != nil {
			return nil, err
		}
		if i == in.CutAfter {
			mcp.CloseSSEStream(ctx)
		}
		if in.IntervalMs > 0 { // after the last one too: the result comes an interval after it
			d := time.Duration(in.IntervalMs) * time.Millisecond
			if t == nil {
				t = time.NewTimer(d)
			} else {
				t.Reset(d)
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
	}
	return mcp.TextResult("done"), nil
}
