package client

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"
)

// exitGrace is how long Close waits for a child process to exit after its
// stdin was closed, before it kills it.
const exitGrace = 5 * time.Second

// NewStdio starts cmd and returns a client speaking over its stdin and
// stdout, as LSP and MCP clients talk to their servers (use
// Options.Framing frame.Header for those). cmd.Stdin and cmd.Stdout must be
// nil; cmd.Stderr is left as it is (nil discards it).
//
// Close closes the child's stdin and waits for it to exit, killing it if it
// has not exited within 5 seconds; Close then returns the error of
// cmd.Wait, if the child was not killed. When the child exits on its own,
// the pending calls fail as for a lost connection. With Options.Token, the
// rpc.authenticate call is answered (or refused: an error wrapping
// ErrUnauthenticated) before NewStdio returns, within 10 seconds.
func NewStdio(cmd *exec.Cmd, opts *Options) (*Client, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("client: NewStdio: cmd.Stdin and cmd.Stdout must be nil")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the child has its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	st := newStream(opts)
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	if err := st.open(ctx, &procConn{cmd: cmd, r: outR, w: inW}); err != nil {
		return nil, err
	}
	return st.start(opts), nil
}

// procConn is the byte stream to a child process: its stdout and stdin.
// Both pipe ends are pollable files, so Close interrupts a blocked read and
// writes take deadlines.
type procConn struct {
	cmd  *exec.Cmd
	r, w *os.File
	once sync.Once
	err  error
}

func (p *procConn) Read(b []byte) (int, error)         { return p.r.Read(b) }
func (p *procConn) Write(b []byte) (int, error)        { return p.w.Write(b) }
func (p *procConn) SetWriteDeadline(t time.Time) error { return p.w.SetWriteDeadline(t) }

// SetDeadline sets the deadline of reads and writes (the rpc.authenticate
// call of Options.Token).
func (p *procConn) SetDeadline(t time.Time) error {
	return errors.Join(p.r.SetReadDeadline(t), p.w.SetWriteDeadline(t))
}

// Close closes the child's stdin, waits for it to exit (killing it after
// exitGrace) and closes its stdout.
func (p *procConn) Close() error {
	p.once.Do(func() {
		p.w.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		t := time.NewTimer(exitGrace)
		select {
		case p.err = <-done:
		case <-t.C:
			p.cmd.Process.Kill()
			<-done // killed by us: not an error
		}
		t.Stop()
		p.r.Close()
	})
	return p.err
}
