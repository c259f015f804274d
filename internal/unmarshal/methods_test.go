package unmarshal

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// recorder keeps what UnmarshalJSON was given.
type recorder struct{ Got string }

func (r *recorder) UnmarshalJSON(b []byte) error {
	r.Got = string(b)
	if r.Got == `"fail"` {
		return errors.New("recorder: fail")
	}
	return nil
}

// textSlice and textMap are TextUnmarshalers of reference kinds: encoding/json
// sets them to nil on null; textStruct is left alone.
type textSlice []byte

func (s *textSlice) UnmarshalText(b []byte) error { *s = append(textSlice("t:"), b...); return nil }

type textMap map[string]int

func (m *textMap) UnmarshalText(b []byte) error { *m = textMap{string(b): len(b)}; return nil }

type textStruct struct{ S string }

func (s *textStruct) UnmarshalText(b []byte) error { s.S = string(b); return nil }

type methods struct {
	R   recorder
	PR  *recorder
	LR  []recorder
	MR  map[string]recorder
	AR  [2]recorder
	TS  textSlice
	TM  textMap
	TT  textStruct
	PTT *textStruct
	LT  []textStruct
}

func full() methods {
	return methods{
		R: recorder{"old"}, PR: &recorder{"old"}, LR: []recorder{{"old"}}, MR: map[string]recorder{"k": {"old"}},
		TS: textSlice("old"), TM: textMap{"old": 1}, TT: textStruct{"old"}, PTT: &textStruct{"old"},
	} // no slice elements: this package never decodes into an existing array
}

// checkInto decodes in into two copies of init() with this package and
// encoding/json and requires the same outcome.
func checkInto[T any](t *testing.T, in string, init func() T, wantErr bool) {
	t.Helper()
	d, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	got, want := init(), init()
	gerr := DecodeInto(d, []byte(in), &got)
	jerr := json.Unmarshal([]byte(in), &want)
	if (gerr != nil) != wantErr || (jerr != nil) != wantErr {
		t.Fatalf("%q: err %v, encoding/json err %v, want error %v", in, gerr, jerr, wantErr)
	}
	if !wantErr && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", in, got, want)
	}
}

func TestUnmarshalers(t *testing.T) {
	ok := func(in string) { t.Helper(); checkInto(t, in, full, false); check[methods](t, in, false) }
	bad := func(in string) { t.Helper(); checkInto(t, in, full, true); check[methods](t, in, true) }
	ok(`{}`)
	ok(`{"R":null,"PR":null,"LR":[null,{"a":1}],"MR":{"k":null,"j":[1]},"AR":[null]}`)
	ok(`{"R": [1, 2] ,"PR":"s","LR":null,"MR":null}`)
	ok(`{"TS":null,"TM":null,"TT":null,"PTT":null,"LT":[null]}`)
	ok(`{"TS":"a\u00e9","TM":"k","TT":"x","PTT":"y","LT":["z"]}`)
	ok(`{"TS":"","TT":""}`)
	bad(`{"R":"fail"}`)
	bad(`{"R":[1,]}`)
	bad(`{"TS":1}`)
	bad(`{"TT":true}`)
	bad(`{"TM":{}}`)
	bad(`{"LT":[[]]}`)
	checkInto(t, `null`, func() recorder { return recorder{"old"} }, false)
	checkInto(t, `null`, func() textSlice { return textSlice("old") }, false)
	checkInto(t, `null`, func() textStruct { return textStruct{"old"} }, false)
	checkInto(t, `null`, func() *recorder { return &recorder{"old"} }, false)
}
