// Command count validates one shape document n times with scan.Valid, for
// instruction counts under callgrind (go test's benchmark harness does not
// run under valgrind):
//
//	internal/scan/shapes/cg.sh   # every shape, jetrpc and fastjson
//
// or by hand:
//
//	go build -o /tmp/count ./internal/scan/shapes/count
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//	    --toggle-collect='*scan.Valid' /tmp/count ints 50
//
// With -fastjson it runs fastjson.ValidateBytes instead.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/jetrpc/jetrpc/internal/scan"
	"github.com/jetrpc/jetrpc/internal/scan/shapes"
	"github.com/valyala/fastjson"
)

func main() {
	fj := flag.Bool("fastjson", false, "validate with fastjson.ValidateBytes")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: count [-fastjson] SHAPE N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "count: N:", err)
		os.Exit(2)
	}
	for _, sh := range shapes.All {
		if sh.Name != flag.Arg(0) {
			continue
		}
		in := []byte(sh.Doc)
		ok := 0
		for range n {
			if *fj {
				if validFastjson(in) {
					ok++
				}
			} else if valid(in) {
				ok++
			}
		}
		fmt.Println(sh.Name, len(in), "bytes", ok, "valid")
		return
	}
	fmt.Fprintln(os.Stderr, "count: no shape", flag.Arg(0))
	os.Exit(2)
}

//go:noinline
func valid(in []byte) bool { return scan.Valid(in, 0) }

//go:noinline
func validFastjson(in []byte) bool { return fastjson.ValidateBytes(in) == nil }
