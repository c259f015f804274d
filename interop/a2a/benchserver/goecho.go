package main

import (
	"context"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
)

// goEcho is the echo agent on a2a-go: the events of jetrpc's a2ademo.Echo
// without its pauses.
type goEcho struct{}

func (goEcho) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := ""
	for _, p := range rc.Message.Parts {
		if tp, ok := p.(sdk.TextPart); ok {
			text += tp.Text
		}
	}
	if rc.StoredTask == nil {
		if err := q.Write(ctx, sdk.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	if err := q.Write(ctx, sdk.NewStatusUpdateEvent(rc, sdk.TaskStateWorking, nil)); err != nil {
		return err
	}
	art := sdk.NewArtifactEvent(rc, sdk.TextPart{Text: text})
	art.LastChunk = true
	if err := q.Write(ctx, art); err != nil {
		return err
	}
	done := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCompleted, sdk.NewMessage(sdk.MessageRoleAgent, sdk.TextPart{Text: text}))
	done.Final = true
	return q.Write(ctx, done)
}

func (goEcho) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}
