package encode_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/encode"
)

func TestAppendString(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := encode.AppendString(nil, in); string(got) != want {
			t.Errorf("AppendString(%q)\n got %s\nwant %s", in, got, want)
		}
		if got := encode.AppendStringBytes([]byte("x"), []byte(in)); string(got) != "x"+want {
			t.Errorf("AppendStringBytes(%q) = %s", in, got)
		}
	}
	f(``, `""`)
	f(`subtract`, `"subtract"`)
	f(`a"b`, `"a\"b"`)
	f(`a\b`, `"a\\b"`)
	f("\n\r\t\b\f", `"\n\r\t\b\f"`)
	f("\x00\x01\x1f\x7f", `"\u0000\u0001\u001f`+"\x7f"+`"`)
	f("<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`)
	f("/", `"/"`)
	f("héllo wörld €𝄞", `"héllo wörld €𝄞"`)
	f("\u2028\u2029", `"\u2028\u2029"`)
	f("a\u2028b\u2029c\u2027", "\"a\\u2028b\\u2029c\u2027\"")
	f("\uFFFD", "\"\uFFFD\"")
	f("\xff", `"\ufffd"`)
	f("a\xffb", `"a\ufffdb"`)
	f("\xe2\x80", `"\ufffd\ufffd"`)           // truncated sequence: one per byte
	f("\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`) // surrogate half
	f("\xc0\xaf", `"\ufffd\ufffd"`)           // overlong
	f("\xf4\x90\x80\x80", `"\ufffd\ufffd\ufffd\ufffd"`)
	f("ok\xc3", `"ok\ufffd"`)
	f(strings.Repeat("x", 100)+"\n", `"`+strings.Repeat("x", 100)+`\n"`)
}

// stdlib is encoding/json's encoding of s with HTML escaping off.
func stdlib(t testing.TB, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// replaceInvalid replaces each byte that is not part of valid UTF-8 with
// U+FFFD, as encoding/json does (strings.ToValidUTF8 would replace a run of
// them with one).
func replaceInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// checkString asserts that AppendString(s) is valid JSON, equals encoding/json's
// output byte for byte and decodes to s with invalid bytes replaced.
func checkString(t testing.TB, s string) {
	t.Helper()
	got := encode.AppendString(nil, s)
	if !json.Valid(got) {
		t.Fatalf("AppendString(%q) = %s: not valid JSON", s, got)
	}
	if want := stdlib(t, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendString(%q)\n got %s\nwant %s (encoding/json)", s, got, want)
	}
	var back string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("AppendString(%q) = %s: %v", s, got, err)
	}
	if want := replaceInvalid(s); back != want {
		t.Fatalf("AppendString(%q) decodes to %q, want %q", s, back, want)
	}
}

func TestAppendStringMatchesStdlib(t *testing.T) {
	var cases []string
	for b := range 256 {
		cases = append(cases, string(rune(b)), string([]byte{byte(b)}), "ab"+string([]byte{byte(b)})+"cd")
	}
	for _, r := range []rune{0x7f, 0x80, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x10ffff, 0x2027, 0x2028, 0x2029, 0x202a} {
		cases = append(cases, string(r), "x"+string(r)+"y")
	}
	cases = append(cases,
		"\xed\xbf\xbf", "\xef\xbf\xbe", "\xf0\x8f\xbf\xbf", "\xf8\x88\x80\x80\x80",
		"\xe2\x80\xa8\xe2\x80", "日本語\x80日本語", strings.Repeat("\xff", 10),
		strings.Repeat("a\"\\\x01é\u2028\xfe", 50), strings.Repeat("plain ascii text ", 100),
	)
	for _, s := range cases {
		checkString(t, s)
	}
}

// TestAppendStringPositions puts every byte value and some sequences at
// every offset of a 20-byte string, across the 8-byte SWAR chunks and the
// byte-by-byte tail.
func TestAppendStringPositions(t *testing.T) {
	var seqs []string
	for b := range 256 {
		seqs = append(seqs, string([]byte{byte(b)}))
	}
	seqs = append(seqs, "é", "€", "𝄞", "\u2028", "\u2029", "\xe2\x80", "\xed\xa0\x80", "\xe0\x80\x80", "\xe0\xa0\x80", "\xef\xbf\xbf", "\xc2", "\xf0\x9d")
	for _, seq := range seqs {
		for off := 0; off <= 20; off++ {
			checkString(t, strings.Repeat("a", off)+seq+strings.Repeat("b", 20-off))
			checkString(t, strings.Repeat("a", off)+seq) // sequence at the very end
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "subtract", "a\"b\\c", "\x00\x1f\n", "héllo", "\u2028", "\xff\xfe", "\xe2\x80", "\xed\xa0\x80", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkString(t, s)
	})
}
