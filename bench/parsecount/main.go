// Command parsecount parses one bench case n times with decode.Parser (or
// validates it with fastjson), for instruction counts under callgrind, which
// the load of a shared machine does not disturb; cg.sh beside it runs every
// case both ways:
//
//	go build -o /tmp/parsecount ./bench/parsecount
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//	    --toggle-collect='main.valid*' /tmp/parsecount jetrpc small 1000
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/valyala/fastjson"
)

var p decode.Parser

func main() {
	if len(os.Args) != 4 || os.Args[1] != "jetrpc" && os.Args[1] != "fastjson" {
		fmt.Fprintln(os.Stderr, "usage: parsecount jetrpc|fastjson CASE N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsecount: N:", err)
		os.Exit(2)
	}
	var msg []byte
	for _, c := range bench.Cases() {
		if c.Name == os.Args[2] {
			msg = c.Msg
		}
	}
	if msg == nil {
		fmt.Fprintln(os.Stderr, "parsecount: no case", os.Args[2])
		os.Exit(2)
	}
	ok := 0
	for range n {
		if os.Args[1] == "fastjson" {
			if validFastjson(msg) {
				ok++
			}
		} else if valid(msg) {
			ok++
		}
	}
	fmt.Println(os.Args[2], len(msg), "bytes", ok, "valid")
}

//go:noinline
func valid(m []byte) bool { _, err := p.Parse(m); return err == nil }

//go:noinline
func validFastjson(m []byte) bool { return fastjson.ValidateBytes(m) == nil }
