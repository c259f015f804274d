package load

// NOTE: a Request is parsed once, at set-up, into a template: the message's
// bytes cut around every id value (the id of a single call, or of each call
// in a batch). Sending a call appends the pieces with fresh ids between
// them; a string id stays a string (its digits quoted). encoding/json's
// Decoder finds the ids' offsets here; nothing of this runs per call.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/jetrpc/jetrpc/bench"
)

// maxHoles is the most calls with an id one request (a batch) may carry:
// ids are callID<<10 | k.
const maxHoles = 1 << 10

// Request is one message of a mix, ready to be sent with fresh ids.
type Request struct {
	Name   string
	Weight int // share of the mix (default 1)

	parts [][]byte // bytes around the ids: len(parts) == holes+1
	str   []bool   // str[k]: id k is a string
	batch bool
}

// Holes is the number of calls with an id the request carries: 0 for a
// notification (or a batch of only notifications), 1 for a single call, the
// number of calls for a batch.
func (r *Request) Holes() int { return len(r.str) }

// IsBatch reports whether the request is a batch.
func (r *Request) IsBatch() bool { return r.batch }

// NewRequest parses msg (one message or one batch) into a Request.
func NewRequest(name string, msg []byte) (Request, error) {
	msg = bytes.TrimSpace(msg)
	r := Request{Name: name, Weight: 1}
	var spans [][2]int
	switch {
	case len(msg) > 0 && msg[0] == '[':
		r.batch = true
		dec := json.NewDecoder(bytes.NewReader(msg))
		if _, err := dec.Token(); err != nil {
			return r, fmt.Errorf("load: request %s: %w", name, err)
		}
		for dec.More() {
			var m json.RawMessage
			if err := dec.Decode(&m); err != nil {
				return r, fmt.Errorf("load: request %s: %w", name, err)
			}
			end := int(dec.InputOffset())
			s, err := idSpan(m)
			if err != nil {
				return r, fmt.Errorf("load: request %s: %w", name, err)
			}
			if s[1] > 0 {
				base := end - len(m)
				spans = append(spans, [2]int{base + s[0], base + s[1]})
			}
		}
		if len(spans) == 0 && !json.Valid(msg) {
			return r, fmt.Errorf("load: request %s: invalid JSON", name)
		}
	default:
		s, err := idSpan(msg)
		if err != nil {
			return r, fmt.Errorf("load: request %s: %w", name, err)
		}
		if s[1] > 0 {
			spans = append(spans, s)
		}
	}
	if len(spans) > maxHoles {
		return r, fmt.Errorf("load: request %s: more than %d calls in a batch", name, maxHoles)
	}
	last := 0
	for _, s := range spans {
		r.parts = append(r.parts, bytes.Clone(msg[last:s[0]]))
		r.str = append(r.str, msg[s[0]] == '"')
		last = s[1]
	}
	r.parts = append(r.parts, bytes.Clone(msg[last:]))
	return r, nil
}

// idSpan returns where the value of obj's top-level "id" member lies, or
// [0,0] when it has none (or id is null: a null id cannot be told apart).
func idSpan(obj []byte) ([2]int, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	t, err := dec.Token()
	if err != nil {
		return [2]int{}, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return [2]int{}, errors.New("a message must be a JSON object")
	}
	var span [2]int
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return span, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return span, err
		}
		if k == "id" && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			end := int(dec.InputOffset())
			span = [2]int{end - len(v), end}
		}
	}
	return span, nil
}

// Append appends the request with ids callID<<10 | k to dst.
func (r *Request) Append(dst []byte, callID uint64) []byte {
	dst = append(dst, r.parts[0]...)
	for k, s := range r.str {
		id := callID<<10 | uint64(k)
		if s {
			dst = append(dst, '"')
			dst = strconv.AppendUint(dst, id, 10)
			dst = append(dst, '"')
		} else {
			dst = strconv.AppendUint(dst, id, 10)
		}
		dst = append(dst, r.parts[k+1]...)
	}
	return dst
}

// CaseNames are the names Mix knows: bench.Cases().
func CaseNames() []string {
	var names []string
	for _, c := range bench.Cases() {
		names = append(names, c.Name)
	}
	return names
}

// Mix parses a mix of bench.Cases(): names separated by commas, each with an
// optional weight ("small", "small=8,batch10=1"); "all" is every case once.
func Mix(spec string) ([]Request, error) {
	cases := map[string][]byte{}
	for _, c := range bench.Cases() {
		cases[c.Name] = c.Msg
	}
	if spec == "all" {
		spec = strings.Join(CaseNames(), ",")
	}
	var out []Request
	for item := range strings.SplitSeq(spec, ",") {
		name, w, hasW := strings.Cut(strings.TrimSpace(item), "=")
		msg, ok := cases[name]
		if !ok {
			return nil, fmt.Errorf("load: unknown case %q (known: %s, all)", name, strings.Join(CaseNames(), ", "))
		}
		r, err := NewRequest(name, msg)
		if err != nil {
			return nil, err
		}
		if hasW {
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || n > 1000 {
				return nil, fmt.Errorf("load: weight of %s must be 1..1000", name)
			}
			r.Weight = n
		}
		out = append(out, r)
	}
	return out, nil
}

// ReadRequests reads one request per line (blank lines and lines starting
// with '#' skipped); each is named "line N".
func ReadRequests(rd io.Reader) ([]Request, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 64<<20)
	var out []Request
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		r, err := NewRequest("line "+strconv.Itoa(n), line)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("load: no requests in file")
	}
	return out, nil
}

// ReadRequestFile is ReadRequests on a file.
func ReadRequestFile(path string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRequests(f)
}

// schedule spreads the mix by weight into a cycle of request indexes.
func schedule(reqs []Request) []int {
	var s []int
	total := 0
	for _, r := range reqs {
		total += max(r.Weight, 1)
	}
	// Interleave: at step i pick the request furthest behind its share.
	given := make([]int, len(reqs))
	for i := 0; i < total; i++ {
		best, bestLag := 0, -1.0
		for j, r := range reqs {
			lag := float64(i+1)*float64(max(r.Weight, 1))/float64(total) - float64(given[j])
			if lag > bestLag {
				best, bestLag = j, lag
			}
		}
		given[best]++
		s = append(s, best)
	}
	return s
}
