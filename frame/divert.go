package frame

// LineSink takes an NDJSON line too long to be a frame, as it is read
// (Reader.SetDivert).
type LineSink interface {
	// Write takes the next bytes of the line (without its '\n'); p is
	// valid only during the call.
	Write(p []byte)
	// End ends the line: complete when its '\n' came, false when the
	// stream ended or failed first (or the Reader was reset).
	End(complete bool)
}

// SetDivert makes an NDJSON Reader offer a line over its MaxMessage to
// divert before discarding it: divert gets the line's first bytes (more
// than MaxMessage of them, valid only during the call) and returns a sink
// for the whole line, or nil to discard it as usual (Next then reports a
// *TooLargeError). A diverted line is not reported: Next goes on with the
// next frame once the line ended. The sink runs on the goroutine calling
// Next. A client streams a large result this way (client.CallTo).
func (r *Reader) SetDivert(divert func(head []byte) LineSink) { r.divert = divert }

// diverting hands the bytes of the line being skipped to its sink, up to
// and without its '\n' when complete.
func (r *Reader) diverted(p []byte, complete bool) {
	if n := len(p); complete && n > 0 && p[n-1] == '\r' {
		p = p[:n-1]
	}
	if len(p) > 0 {
		r.sink.Write(p)
	}
	if complete {
		r.sink.End(true)
		r.sink = nil
	}
}

// endSink ends a line that could not be completed.
func (r *Reader) endSink() {
	if r.sink != nil {
		r.sink.End(false)
		r.sink = nil
	}
}
