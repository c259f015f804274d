package fuzz

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"testing"
)

// FuzzProcessStream checks Engine.ProcessStream against Engine.Process on
// arbitrary bytes: the same responses, each emitted on its own (a batch's
// members one by one, never an array), nothing when nothing is due.
func FuzzProcessStream(f *testing.F) {
	for i, s := range seeds(f) {
		f.Add(s, uint8(i))
	}
	engines := newEngines(f)
	cancelled := cancelledContext()
	f.Fuzz(func(t *testing.T, data []byte, cfg uint8) {
		e := engines[int(cfg)%len(engines)]
		want := e.ProcessContext(cancelled, nil, data)
		var mu sync.Mutex
		var got []string
		e.ProcessStream(cancelled, data, func(resp []byte) {
			mu.Lock()
			got = append(got, string(resp))
			mu.Unlock()
		})
		var wantList []string
		switch {
		case len(want) == 0:
		case want[0] == '[':
			var members []json.RawMessage
			if err := json.Unmarshal(want, &members); err != nil {
				t.Fatalf("Process answered %q: %v", want, err)
			}
			for _, m := range members {
				wantList = append(wantList, string(m))
			}
		default:
			wantList = []string{string(want)}
		}
		for _, g := range got {
			if !bytes.HasPrefix([]byte(g), []byte("{")) {
				t.Errorf("emitted %q: not one response object", g)
			}
		}
		slices.Sort(wantList)
		slices.Sort(got)
		if !slices.Equal(wantList, got) {
			t.Errorf("input %q:\nProcess %q\nProcessStream %q", data, wantList, got)
		}
	})
}
