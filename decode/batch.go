package decode

// NOTE: a batch's members are kept compact. A Message is 152 bytes (six slices), more than
// twice the smallest Request object (30 bytes), so a table of Messages would make a batch's
// working memory grow faster than its text. A bmember here is 52 bytes: its Kind, Reason and
// Seen, and six spans, offsets into the input (or, for a method name with escapes, into
// the scratch buffer). Members sit in chunks of chunkMembers, which are never copied as
// the batch grows, and the Parser keeps the first maxKeptChunks of them between messages.
// BatchMember turns one back into a Message; Batch builds a slice of all of them.

import "github.com/jetrpc/jetrpc/internal/scan"

const (
	chunkMembers   = 128
	maxKeptChunks  = 8 // 1024 members: a batch at the default MaxBatch needs no new chunk
	maxKeptMembers = maxKeptChunks * chunkMembers

	// maxSpan bounds the offsets a span holds: a batch of 4 GiB or more is over any limit.
	maxSpan = 1<<32 - 1

	// inScratch marks, in bmember.seen, a method name kept in the scratch buffer.
	inScratch Members = 1 << 15
)

// span is data[off:end] of the input it refers to; end == 0 means absent (nil). No present
// value ends at offset 0: every bmember lies inside the batch's brackets.
type span struct{ off, end uint32 }

func (s span) of(b []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return b[s.off:s.end:s.end]
}

// bmember is one batch bmember, compact.
type bmember struct {
	kind   Kind
	reason Reason
	seen   Members // | inScratch
	method span
	id     span
	params span
	result span
	error  span
	meta   span
}

// classifyMember sets bm's Kind, Reason and Seen from env, as classify would a Message's, and
// drops its id span when the id is not valid.
func (p *Parser) classifyMember(bm *bmember, env *envelope) {
	m := &p.cls
	p.classify(m, env)
	bm.kind, bm.reason = m.Kind, m.Reason
	bm.seen |= m.Seen
	if m.ID == nil {
		bm.id = span{}
	}
	m.ID = nil
}

// recordMember is record for a batch member: it notes the first occurrence of known member k,
// whose raw value v begins at data[vs], in env and where it lies in bm. Keep in step with
// record.
func (p *Parser) recordMember(bm *bmember, env *envelope, k Members, v []byte, vs int, vesc bool) {
	sp := span{uint32(vs), uint32(vs + len(v))}
	switch k {
	case HasJSONRPC:
		env.version = string(v) == `"2.0"` || vesc && KeyEquals(v[1:len(v)-1], "2.0")
	case HasMethod:
		if v[0] != '"' {
			return
		}
		env.methodStr = true
		if !vesc {
			bm.method = span{sp.off + 1, sp.end - 1}
			return
		}
		start := uint32(len(p.scratch))
		p.scratch, _ = scan.AppendUnescaped(p.scratch, v[1:len(v)-1])
		bm.method = span{start, uint32(len(p.scratch))}
		bm.seen |= inScratch
	case HasParams:
		bm.params = sp
		env.paramsOK = v[0] == '{' || v[0] == '['
	case HasID:
		b := v[0]
		bm.id = sp // dropped by classify when the id is not valid
		env.id = v
		env.idOK = b == '"' || b == 'n' || b == '-' || b-'0' < 10
	case HasResult:
		bm.result = sp
	case HasError:
		bm.error = sp
		env.errorObj = v[0] == '{'
	case HasMeta:
		bm.meta = sp
	}
}

// members is a batch's table.
type members struct {
	chunks []*[chunkMembers]bmember
	n      int
}

// add returns a new, zeroed bmember at the end of the table.
func (t *members) add() *bmember {
	n := uint(t.n)
	c := n / chunkMembers
	if c == uint(len(t.chunks)) {
		t.chunks = append(t.chunks, new([chunkMembers]bmember))
	}
	t.n++
	bm := &t.chunks[c][n%chunkMembers]
	*bm = bmember{}
	return bm
}

func (t *members) at(i int) *bmember {
	return &t.chunks[uint(i)/chunkMembers][uint(i)%chunkMembers]
}

// reset empties the table, letting go of the chunks past maxKeptChunks.
func (t *members) reset() {
	t.n = 0
	if len(t.chunks) > maxKeptChunks {
		clear(t.chunks[maxKeptChunks:])
		t.chunks = t.chunks[:maxKeptChunks]
	}
}

// endBatch forgets the last batch (the next Parse begins).
func (p *Parser) endBatch() {
	p.members.reset()
	clear(p.batch)
	if p.batch = p.batch[:0]; cap(p.batch) > maxKeptMembers {
		p.batch = nil
	}
	p.isBatch, p.built, p.data = false, false, nil
}

// BatchLen returns the number of members of the last Parse if its Kind was Batch, else 0.
func (p *Parser) BatchLen() int {
	if !p.isBatch {
		return 0
	}
	return p.members.n
}

// BatchKind returns the Kind of bmember i (0 <= i < BatchLen()) of the last batch.
func (p *Parser) BatchKind(i int) Kind { return p.members.at(i).kind }

// BatchMethod returns the Kind and the method name of member i (0 <= i < BatchLen()) of the
// last batch, as BatchMember would set them.
func (p *Parser) BatchMethod(i int) (Kind, []byte) {
	bm := p.members.at(i)
	if bm.seen&inScratch != 0 {
		return bm.kind, bm.method.of(p.scratch)
	}
	return bm.kind, bm.method.of(p.data)
}

// BatchMember sets *m to bmember i (0 <= i < BatchLen()) of the last batch: what Batch()[i]
// holds, without building the slice of Messages. Its slices are valid until the next Parse.
func (p *Parser) BatchMember(i int, m *Message) {
	bm := p.members.at(i)
	data := p.data
	method := data
	if bm.seen&inScratch != 0 {
		method = p.scratch
	}
	m.Kind, m.Seen, m.Reason = bm.kind, bm.seen&^inScratch, bm.reason
	m.Method, m.ID, m.Params, m.Meta = bm.method.of(method), bm.id.of(data), bm.params.of(data), bm.meta.of(data)
	if bm.kind == Call || bm.kind == Notification { // a request has neither (it would be Invalid)
		m.Result, m.Error = nil, nil
		return
	}
	m.Result, m.Error = bm.result.of(data), bm.error.of(data)
}
