package unmarshal

import "strconv"

// Error reports a value that could not be decoded: a syntax error or a type
// mismatch. Path names the member or element where it happened, as
// "a.b[2]" ("" for the top-level value); Offset is the byte offset in the
// input.
type Error struct {
	Path   string
	Msg    string
	Offset int
}

func (e *Error) Error() string {
	s := "unmarshal: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

func syntaxErr(i int) error { return &Error{Msg: "invalid JSON", Offset: i} }

func typeErr(msg string, i int) error { return &Error{Msg: msg, Offset: i} }

// wrapField prefixes the path of err with a member name.
func wrapField(err error, name string) error {
	if e, ok := err.(*Error); ok {
		if e.Path == "" || e.Path[0] == '[' {
			e.Path = name + e.Path
		} else {
			e.Path = name + "." + e.Path
		}
	}
	return err
}

// wrapIndex prefixes the path of err with an element index.
func wrapIndex(err error, i int) error {
	if e, ok := err.(*Error); ok {
		if e.Path == "" || e.Path[0] == '[' {
			e.Path = "[" + strconv.Itoa(i) + "]" + e.Path
		} else {
			e.Path = "[" + strconv.Itoa(i) + "]." + e.Path
		}
	}
	return err
}
