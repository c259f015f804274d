package accesslog_test

import (
	"log/slog"
	"os"
	"time"

	"github.com/jetrpc/jetrpc/accesslog"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// Log every call at Debug level, and calls over 10 ms as warnings.
func Example() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" { // not the same twice
				return slog.Attr{}
			}
			return a
		},
	}))
	e := dispatch.New(&dispatch.Options{
		Observer: accesslog.New(log, &accesslog.Options{SlowCall: 10 * time.Millisecond}),
	})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"nope","id":"x"}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"sleep","params":[20],"id":2}`))
	// Output:
	// level=DEBUG msg="jetrpc call" method=subtract id=1 code=0
	// level=DEBUG msg="jetrpc call" method=nope id="\"x\"" code=-32601
	// level=WARN msg="jetrpc slow call" method=sleep id=2 code=0
}
