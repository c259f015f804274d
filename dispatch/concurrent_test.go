package dispatch_test

import (
	"strconv"
	"sync"
	"testing"
)

// TestConcurrentProcess runs many goroutines through one Engine (meaningful
// under -race): each checks its own answers byte for byte.
func TestConcurrentProcess(t *testing.T) {
	e := newDemo(t, nil)
	const goroutines, rounds = 16, 300
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var dst []byte
			for i := 0; i < rounds; i++ {
				id := strconv.Itoa(g*rounds + i)
				msg := `[{"jsonrpc":"2.0","method":"subtract","params":[` + id + `,1],"id":` + id + `},` +
					`{"jsonrpc":"2.0","method":"sleep","params":[0],"id":"s"},{"jsonrpc":"2.0","method":"sleep","params":[0],"id":"t"}]`
				dst = e.Process(dst[:0], []byte(msg))
				n, _ := strconv.Atoi(id)
				want := `{"jsonrpc":"2.0","id":` + id + `,"result":` + strconv.Itoa(n-1) + `}`
				if !contains(dst, want) {
					errs <- string(dst)
					return
				}
				single := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"echo","params":[`+id+`],"id":`+id+`}`))
				if string(single) != `{"jsonrpc":"2.0","id":`+id+`,"result":[`+id+`]}` {
					errs <- string(single)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Error("wrong response:", s)
	}
}

func contains(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}
