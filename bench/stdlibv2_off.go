//go:build !goexperiment.jsonv2

package bench

// JSONBuild names the encoding/json that Stdlib runs on in this build.
const JSONBuild = "encoding/json (v1)"

// NewStdlibV2 returns the encoding/json/v2 baseline, which only a build
// with GOEXPERIMENT=jsonv2 has (encoding/json/v2 needs the experiment in
// Go 1.26): here it returns nil.
func NewStdlibV2() Baseline { return nil }
