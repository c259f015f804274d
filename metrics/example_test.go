package metrics_test

import (
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Register jetrpc's metrics in a registry of your own, observe an engine
// with them, and read what a scrape would see.
func Example() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, nil)
	if err != nil {
		panic(err)
	}
	e := dispatch.New(&dispatch.Options{Observer: m})
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"nope","id":2}`))

	mfs, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "jetrpc_calls_total" {
			continue
		}
		var b strings.Builder
		expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain)).Encode(mf)
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.Contains(line, `method="subtract"`) || strings.Contains(line, "(unknown)") {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// jetrpc_calls_total{code="-32601",method="(unknown)"} 1
	// jetrpc_calls_total{code="ok",method="subtract"} 1
}
