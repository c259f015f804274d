package decode

// NOTE: a batch's members are kept compact. A Message is 152 bytes (six slices), more than
// twice the smallest Request object (30 bytes), so a table of Messages would make a batch's
// working memory grow faster than its text. A bmember here is 52 bytes: its Kind, Reason and
// Seen (with two flags of its own: inScratch, paramsCompact), and six spans, offsets into
// the input (or, for a method name with escapes, into the scratch buffer). Members sit in chunks of chunkMembers, which are never copied as
// the batch grows, and the Parser keeps the first maxKeptChunks of them between messages.
// record fills a Message for a member as for a single message; classifyMember packs it into a
// bmember, and BatchMember turns one back into a Message; Batch builds a slice of all of them.

import "github.com/jetrpc/jetrpc/internal/bytesconv"

const (
	chunkMembers   = 128
	maxKeptChunks  = 8 // 1024 members: a batch at the default MaxBatch needs no new chunk
	maxKeptMembers = maxKeptChunks * chunkMembers

	// maxSpan bounds the offsets a span holds: a batch of 4 GiB or more is over any limit.
	maxSpan = 1<<32 - 1

	// inScratch marks, in bmember.seen, a method name kept in the scratch buffer.
	inScratch Members = 1 << 15
	// paramsCompact marks, in bmember.seen, params that Message.ParamsCompact reports.
	paramsCompact Members = 1 << 14
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

// classifyMember classifies a batch member that record noted in m (filled as a single message
// is; m is reused, so only the fields of members seen are read) and packs it into bm: its Kind, Reason and Seen, and where its values lie in data
// (the batch's input) or, for a method name with escapes, in the scratch buffer.
func (p *Parser) classifyMember(bm *bmember, m *Message, env *envelope, data []byte) {
	p.classify(m, env)
	bm.kind, bm.reason, bm.seen = m.Kind, m.Reason, m.Seen
	seen := m.Seen
	switch {
	case !env.methodStr:
	case env.nameAt >= 0:
		bm.method = span{uint32(env.nameAt), uint32(env.nameAt + len(m.Method))}
		bm.seen |= inScratch
	default:
		bm.method = spanIn(m.Method, data)
	}
	if m.ID != nil { // a valid id
		bm.id = spanIn(m.ID, data)
		m.ID = nil
	}
	if seen&HasParams != 0 {
		bm.params = spanIn(m.Params, data)
		if m.compact {
			bm.seen |= paramsCompact
		}
	}
	if seen&HasResult != 0 {
		bm.result = spanIn(m.Result, data)
	}
	if seen&HasError != 0 {
		bm.error = spanIn(m.Error, data)
	}
	if seen&HasMeta != 0 {
		bm.meta = spanIn(m.Meta, data)
	}
}

// spanIn returns the span of b, a sub-slice of in (the member's values
// are, by construction: not checked).
func spanIn(b, in []byte) span {
	off := bytesconv.Within(b, in)
	return span{uint32(off), uint32(off + len(b))}
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
	m.Kind, m.Seen, m.Reason = bm.kind, bm.seen&^(inScratch|paramsCompact), bm.reason
	m.compact = bm.seen&paramsCompact != 0
	m.Method, m.ID, m.Params, m.Meta = bm.method.of(method), bm.id.of(data), bm.params.of(data), bm.meta.of(data)
	if bm.kind == Call || bm.kind == Notification { // a request has neither (it would be Invalid)
		m.Result, m.Error = nil, nil
		return
	}
	m.Result, m.Error = bm.result.of(data), bm.error.of(data)
}
