// Package a2ademo is the demo agent of jetrpc serve --a2a: echo, shaped
// like the a2a-tck's reference agent. A task goes submitted, then working
// (after 0.5 s), then gets an artifact with the echoed text and is
// completed (after 0.5 s more) with the same text as the status message.
// A message whose messageId starts with test-resubscribe-message-id stays
// working for 5 s, so that a client can subscribe again meanwhile.
package a2ademo

import (
	"context"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
)

// Timings of the echo agent.
type Timings struct {
	Submitted   time.Duration // in submitted before working (default 500 ms)
	Working     time.Duration // in working before the artifact (default 500 ms)
	Resubscribe time.Duration // working, for a test-resubscribe-message-id message (default 5 s)
}

// Card returns the echo agent's card.
func Card() a2a.AgentCard {
	skill := a2a.AgentSkill{ID: "echo", Name: "Echo", Description: "Answers with the text it was sent",
		Tags: []string{"echo", "demo"}, Examples: []string{"hello"}}
	return a2a.AgentCard{Name: "echo", Description: "jetrpc's demo A2A agent: echoes the text of a message",
		Version: "0.1.0", Provider: &a2a.AgentProvider{Organization: "jetrpc", URL: "https://github.com/jetrpc/jetrpc"},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{skill}, Streaming: true, PushNotifications: true,
		ExtendedSkills: []a2a.AgentSkill{{ID: "echo-extended", Name: "Echo (extended)",
			Description: "The echo skill as the extended card lists it", Tags: []string{"echo"}}}}
}

// Echo returns the echo agent (nil timings: the defaults).
func Echo(t *Timings) a2a.Executor {
	tm := Timings{Submitted: 500 * time.Millisecond, Working: 500 * time.Millisecond, Resubscribe: 5 * time.Second}
	if t != nil {
		tm = *t
	}
	return a2a.ExecutorFunc(func(ctx context.Context, r *a2a.Run) error {
		text := textOf(&r.Message)
		if !sleep(ctx, tm.Submitted) {
			return ctx.Err()
		}
		if err := r.Status(a2a.StateWorking, nil); err != nil {
			return err
		}
		wait := tm.Working
		if strings.HasPrefix(r.Message.MessageID, "test-resubscribe-message-id") {
			wait = tm.Resubscribe
		}
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
		if err := r.Artifact(a2a.Artifact{Name: "response", Description: "The echoed text",
			Parts: []a2a.Part{a2a.TextPart(text)}}, false, true); err != nil {
			return err
		}
		return r.Status(a2a.StateCompleted, &a2a.Message{MessageID: r.TaskID + "-reply", Parts: []a2a.Part{a2a.TextPart(text)}})
	})
}

func textOf(m *a2a.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.IsText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
