//go:build !race

package rpcmsg

import "testing"

// TestCodecAllocs: a params pointer costs nothing to encode and a number
// result nothing to decode; a one-string result costs the string. (The
// values passed are made outside the runs: a literal in the run would
// escape and count.)
func TestCodecAllocs(t *testing.T) {
	dst := make([]byte, 0, 256)
	f := func(name string, want float64, run func() error) {
		t.Helper()
		var err error
		run()
		if n := testing.AllocsPerRun(100, func() { err = run() }); n != want || err != nil {
			t.Errorf("%s: %v allocs per run, want %v (err %v)", name, n, want, err)
		}
	}
	args := &subArgs{42, 23}
	var nilArgs *subArgs
	pair := &[2]int{1, 2}
	var n int
	var s strRes
	num, obj := []byte(`19`), []byte(`{"s":"hello"}`)
	f("AppendRequest *struct", 0, func() (err error) {
		dst, err = AppendRequest(dst[:0], []byte("1"), "subtract", args, errBad)
		return
	})
	f("AppendRequest nil *struct", 0, func() (err error) {
		dst, err = AppendRequest(dst[:0], []byte("1"), "subtract", nilArgs, errBad)
		return
	})
	f("AppendNotification *[2]int", 0, func() (err error) {
		dst, err = AppendNotification(dst[:0], "subtract", pair, errBad)
		return
	})
	f("DecodeResult int", 0, func() error { return DecodeResult(num, &n) })
	f("DecodeResult one string", 1, func() error { return DecodeResult(obj, &s) })
}
