package unmarshal

import (
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// TestPlainInt: plainInt takes only what the checked path (scan.Number,
// then strconv) reads as the same integer, ending at the same byte, and
// takes the plain integers of up to 18 digits.
func TestPlainInt(t *testing.T) {
	plain := []string{"0", "-0", "7", "-7", "42,", "23]", "99}", "12 ", "123456789012345678", "-123456789012345678"}
	other := []string{"1234567890123456789", "9223372036854775807", "01", "-01", "00", "-", "-a", "1.5",
		"1e3", "1E3", "2e", "0.0", "+1", `"1"`, "x"}
	for _, in := range append(plain, other...) {
		n, end, ok := plainInt([]byte(in), 0)
		j, c := scan.Number([]byte(in), 0)
		if !ok {
			continue
		}
		want, err := strconv.ParseInt(in[:j], 10, 64)
		if c != scan.OK || err != nil || n != want || end != j {
			t.Errorf("%q: plainInt %d ending at %d; the checked path: %v, %d ending at %d, %v", in, n, end, c, want, j, err)
		}
	}
	for _, in := range plain {
		if _, _, ok := plainInt([]byte(in), 0); !ok {
			t.Errorf("%q: plainInt refused a plain integer", in)
		}
	}
	for _, in := range other {
		if _, _, ok := plainInt([]byte(in), 0); ok {
			t.Errorf("%q: plainInt took what is not a plain integer of 18 digits at most", in)
		}
	}
}
