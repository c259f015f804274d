package pool

// The pool's state, for the tests: nothing outside them needs it.

// Running returns the number of worker goroutines alive, busy or idle.
func (w *Workers) Running() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count
}

// Idle returns the number of workers waiting for a task.
func (w *Workers) Idle() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle)
}

// Busy returns the number of workers running a task (or about to).
func (w *Workers) Busy() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.count - len(w.idle)
}

// Max returns the most workers the pool runs at once.
func (w *Workers) Max() int { return w.max }
