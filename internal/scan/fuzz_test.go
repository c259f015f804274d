package scan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/internal/scan/shapes"
)

// validSeeds are inputs around the edges of the fast lane (run): integers of every length
// around its seven digits, leading zeros, signs, floats, literals cut short, names with
// escapes, and values that end within the last 8 bytes.
var validSeeds = []string{
	`[1,2,3]`, `[0,1,20,300,4000,50000,600000,7000000,80000000,900000000]`,
	`[01,2]`, `[00]`, `[-0,1]`, `[-01,1]`, `[-,1]`, `[-1234567,1]`, `[-12345678,1]`,
	`[1234567,1]`, `[12345678,1]`, `[1.5,2]`, `[1e5,2]`, `[1E+5,2]`, `[1.,2]`, `[1 ,2]`,
	`[1,2 ]`, `[true,false,null,true]`, `[tru,1]`, `[nul,1]`, `[fals,1]`, `[truex,1]`,
	`[true1,1]`, `[nullnull]`, `{"a":1,"b":2,"c":[1,2],"d":"x"}`, `{"a":1,"b" :2}`,
	`{"a":1,"b\"":2}`, `{"a":1,"b":"\u00e9x"}`, `{"a":1,b:2}`, `{"a":1,"b":}`,
	`["abcdefghijklmnopqrstuvwxyz","abc\n","abc` + "\x01" + `"]`,
	`["0123456789abcdef0123456789abcdef","é","` + "\xff" + `"]`,
	`[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,2`,
	`{"line":12,"character":4,"x":true,"y":null}`, `{"line":12,"character":4,"x":true,"y":nul}`,
	// Bare integers, Valid's fast path (Int), and what it must leave to the full scan.
	`0`, `-0`, `00`, `01`, `-01`, `--1`, `-`, `19`, `-19`, `1234567890123456789012345678901234567890`,
	` 1`, `1 `, `1.5`, `-1e5`, `0x1`, `1-`, `1a`, "1\x00",
}

// FuzzValid checks Valid against the reference: encoding/json's syntax check plus UTF-8
// (encoding/json lets bytes that are not UTF-8 through; jetrpc rejects them).
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	for _, sh := range shapes.All {
		f.Add([]byte(sh.Doc[:300]))
		f.Add([]byte(sh.Doc[:300] + "]"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Valid(data, 10000) // encoding/json's own nesting limit
		want := json.Valid(data) && utf8.Valid(data)
		if got != want {
			t.Fatalf("Valid(%q) = %v, want %v", data, got, want)
		}
	})
}

// TestValidSeeds runs the seeds and every prefix of each through the same check.
func TestValidSeeds(t *testing.T) {
	for _, s := range validSeeds {
		for n := 0; n <= len(s); n++ {
			data := []byte(s[:n])
			if got, want := Valid(data, 0), json.Valid(data) && utf8.Valid(data); got != want {
				t.Errorf("Valid(%q) = %v, want %v", data, got, want)
			}
		}
	}
}
