package decode

import "testing"

// TestParamsCompact: ParamsCompact tells params with no whitespace between their tokens
// (spaces inside strings do not count) from params with some, whatever whitespace the
// envelope around them holds, for a single message and for each batch member alike, and
// Clone keeps it.
func TestParamsCompact(t *testing.T) {
	f := func(params string, want bool) {
		t.Helper()
		var p Parser
		for _, in := range []string{
			`{"jsonrpc":"2.0","method":"m","params":` + params + `,"id":1}`,
			"{ \"jsonrpc\" : \"2.0\" ,\n\t\"method\":\"m\", \"params\" :\r\n" + params + " , \"id\" : 1 }\n",
		} {
			m, err := p.Parse([]byte(in))
			if err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if got := m.ParamsCompact(); got != want {
				t.Errorf("ParamsCompact() = %v, want %v: %s", got, want, in)
			}
			if c := m.Clone(); c.ParamsCompact() != want {
				t.Errorf("Clone: ParamsCompact() = %v, want %v: %s", c.ParamsCompact(), want, in)
			}
			// In a batch, between members with the other answer and without params.
			other := `[1]`
			if want {
				other = `[ 1 ]`
			}
			batch := `[{"jsonrpc":"2.0","method":"m","params":` + other + `},` + in +
				`,{"jsonrpc":"2.0","method":"m"}, {"jsonrpc":"2.0","method":"m","params":` + params + `}]`
			if _, err := p.Parse([]byte(batch)); err != nil {
				t.Fatalf("%s: %v", batch, err)
			}
			var bm Message
			for k, w := range []bool{!want, want, false, want} {
				p.BatchMember(k, &bm)
				if bm.ParamsCompact() != w || p.Batch()[k].ParamsCompact() != w {
					t.Errorf("batch member %d: ParamsCompact() = %v, want %v: %s", k, bm.ParamsCompact(), w, batch)
				}
			}
		}
	}
	f(`[1,"a b",{"c":null}]`, true)
	f(`{}`, true)
	f(`[]`, true)
	f(`{"a":" ","b":[true,false]}`, true)
	f(`[ 1]`, false)
	f(`[1 ]`, false)
	f(`{"a" :1}`, false)
	f(`{"a":1,"b":[{"c":`+"\n"+`2}]}`, false)
	f(`{ }`, false)
	f(`"not a container"`, false) // Invalid (ReasonParams) and never compact
	f(`7`, false)
}
