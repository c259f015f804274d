package decode

// NOTE: a batch's members are kept compact. A Message is 152 bytes (six slices), more than
// twice the smallest Request object (30 bytes), so a table of Messages would make a batch's
// working memory grow faster than its text. A bmember here is 52 bytes: its Kind, Reason and
// Seen, and six spans, offsets into the input (or, for a method name with escapes, into
// the scratch buffer). Members sit in chunks of chunkMembers, which are never copied as
// the batch grows, and the Parser keeps the first maxKeptChunks of them between messages.
// BatchMember turns one back into a Message; Batch builds a slice of all of them.

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

// classified takes the Kind, Reason, Seen and the presence of the ID that classify gave m.
func (bm *bmember) classified(m *Message) {
	bm.kind, bm.reason = m.Kind, m.Reason
	bm.seen = m.Seen | bm.seen&inScratch
	if m.ID == nil {
		bm.id = span{}
	}
}

// recordSpan records in bm where the known bmember k, just recorded in m, lies: its raw value
// is data[vs:end].
func (p *Parser) recordSpan(bm *bmember, m *Message, k Members, data []byte, vs, end int, vesc bool) {
	v := span{uint32(vs), uint32(end)}
	switch k {
	case HasMethod:
		switch {
		case data[vs] != '"': // not a string
		case vesc:
			n := uint32(len(p.scratch))
			bm.method = span{n - uint32(len(m.Method)), n}
			bm.seen |= inScratch
		default:
			bm.method = span{v.off + 1, v.end - 1}
		}
	case HasParams:
		bm.params = v
	case HasID:
		bm.id = v // dropped by classified when the id is not valid
	case HasResult:
		bm.result = v
	case HasError:
		bm.error = v
	case HasMeta:
		bm.meta = v
	}
}

// members is a batch's table.
type members struct {
	chunks []*[chunkMembers]bmember
	n      int
}

// add returns a new, zeroed bmember at the end of the table.
func (t *members) add() *bmember {
	c, i := t.n/chunkMembers, t.n%chunkMembers
	if c == len(t.chunks) {
		t.chunks = append(t.chunks, new([chunkMembers]bmember))
	}
	t.n++
	bm := &t.chunks[c][i]
	*bm = bmember{}
	return bm
}

func (t *members) at(i int) *bmember { return &t.chunks[i/chunkMembers][i%chunkMembers] }

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

// BatchMethod returns the method name of member i (0 <= i < BatchLen()) of the last batch,
// as BatchMember would set it.
func (p *Parser) BatchMethod(i int) []byte {
	bm := p.members.at(i)
	if bm.seen&inScratch != 0 {
		return bm.method.of(p.scratch)
	}
	return bm.method.of(p.data)
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
	*m = Message{
		Kind:   bm.kind,
		Seen:   bm.seen &^ inScratch,
		Reason: bm.reason,
		Method: bm.method.of(method),
		ID:     bm.id.of(data),
		Params: bm.params.of(data),
		Result: bm.result.of(data),
		Error:  bm.error.of(data),
		Meta:   bm.meta.of(data),
	}
}
