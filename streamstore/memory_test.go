package streamstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/stretchr/testify/require"
)

// replay returns the Seq of each event kept of key after after, and
// whether the store knows key.
func replay(t *testing.T, m *streamstore.Memory, key streamstore.Key, after uint64) ([]uint64, bool) {
	t.Helper()
	var seqs []uint64
	found, err := m.Replay(context.Background(), key, after, func(ev streamstore.Event) error {
		seqs = append(seqs, ev.Seq)
		return nil
	})
	require.NoError(t, err)
	return seqs, found
}

// TestMemoryBounds: past MaxStreamBytes a stream drops its oldest events
// (the newest stays, however big); past MaxBytes the streams appended to
// first are dropped whole, never the one being appended to.
func TestMemoryBounds(t *testing.T) {
	ctx := context.Background()
	m := streamstore.NewMemory(&streamstore.MemoryOptions{MaxStreamBytes: 30, MaxBytes: 50})
	a, b := streamstore.Key{Session: "a", Stream: 1}, streamstore.Key{Session: "b", Stream: 1}
	ten := []byte(strings.Repeat("x", 10))
	for i := uint64(1); i <= 5; i++ {
		require.NoError(t, m.Append(ctx, a, streamstore.Event{Seq: i, Data: ten}))
	}
	seqs, found := replay(t, m, a, 0)
	require.True(t, found)
	require.Equal(t, []uint64{3, 4, 5}, seqs)
	seqs, _ = replay(t, m, a, 4)
	require.Equal(t, []uint64{5}, seqs)
	require.Equal(t, 30, m.Bytes())

	require.NoError(t, m.Append(ctx, b, streamstore.Event{Seq: 1, Data: ten}))
	require.NoError(t, m.Append(ctx, b, streamstore.Event{Seq: 2, Data: ten}))
	require.NoError(t, m.Append(ctx, b, streamstore.Event{Seq: 3, Data: ten})) // 60 > 50: a goes
	_, found = replay(t, m, a, 0)
	require.False(t, found)
	seqs, _ = replay(t, m, b, 0)
	require.Equal(t, []uint64{1, 2, 3}, seqs)

	big := []byte(strings.Repeat("y", 40))
	require.NoError(t, m.Append(ctx, b, streamstore.Event{Seq: 4, Data: big}))
	seqs, _ = replay(t, m, b, 0)
	require.Equal(t, []uint64{4}, seqs)
	require.NoError(t, m.Forget(ctx, "b"))
	require.Equal(t, 0, m.Bytes())
}
