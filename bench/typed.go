package bench

import (
	"context"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// SubtractArgs are the typed subtract's params (demo.SubtractArgs).
type SubtractArgs = demo.SubtractArgs

// RegisterTyped registers the methods of TypedCases as typed handlers, the
// way a user writes them: demo.RegisterTyped (subtract, echo, update and the
// other specification methods through dispatch.Typed and plain Register)
// and RegisterProfile. BenchmarkEngineTyped runs the cases on them beside
// BenchmarkEngine's raw handlers.
func RegisterTyped(e *dispatch.Engine) error {
	if err := demo.RegisterTyped(e); err != nil {
		return err
	}
	return RegisterProfile(e)
}

// ProfileArgs are the params of the typed-only case "strings": an object of
// string fields, decoded by name.
type ProfileArgs struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Bio   string `json:"bio"`
	City  string `json:"city"`
	Note  string `json:"note"`
}

// RegisterProfile registers "profile", the typed method of TypedCases'
// strings case: ProfileArgs -> the total length of its strings.
func RegisterProfile(e *dispatch.Engine) error {
	return e.Register("profile", dispatch.Typed(func(_ context.Context, a ProfileArgs) (int, error) {
		return len(a.Name) + len(a.Email) + len(a.Bio) + len(a.City) + len(a.Note), nil
	}))
}

// TypedCases returns Cases and the cases only the typed handlers answer:
// strings, a call of profile whose params are five string fields, two of
// them with escapes (typed string decoding).
func TypedCases() []Case {
	return append(Cases(), Case{"strings", []byte(`{"jsonrpc":"2.0","method":"profile","params":{` +
		`"name":"Ada Lovelace","email":"ada.lovelace@analytical-engine.example",` +
		`"bio":"Wrote \"the first program\" for Babbage's engine;\nnotes A to G, 1843.",` +
		`"city":"London, England","note":"caf\u00e9 au lait \u2014 no sugar, thanks"},"id":9}`)})
}
