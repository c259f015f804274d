package main

// NOTE: jetrpc serve --ipc PATH (#21): the JSON-RPC demo on a Unix socket,
// as go-ethereum's --ipcpath serves local tools: auto framing whatever
// --framing says, the socket file mode 0600. A socket file left by a
// server that is gone is removed first; one that answers a dial belongs to
// a live server, so serve fails instead of taking it over. The listener
// removes the file when it closes.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
)

// ipcServe is the --ipc listener and its server.
type ipcServe struct {
	path string
	srv  *netserver.Server
	ln   net.Listener
}

type ipcFlags struct{ path string }

func (f *ipcFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "ipc", "", "serve JSON-RPC on a Unix socket at `PATH` (auto framing, mode 0600; empty: off)")
}

// newIPC returns the --ipc server (nil without --ipc).
func newIPC(e *dispatch.Engine, cfg *serveConfig, opts *netserver.Options) *ipcServe {
	if cfg.ipc.path == "" {
		return nil
	}
	o := *opts
	o.Framing = frame.Auto
	return &ipcServe{path: cfg.ipc.path, srv: netserver.New(e, &o)}
}

// listen binds the socket and prints "listening ipc PATH".
func (s *ipcServe) listen(stderr io.Writer) error {
	if s == nil {
		return nil
	}
	ln, err := listenUnix(s.path)
	if err != nil {
		return fmt.Errorf("--ipc %s: %w", s.path, err)
	}
	s.ln = ln
	fmt.Fprintf(stderr, "listening ipc %s\n", s.path)
	return nil
}

func (s *ipcServe) serve() error { return s.srv.Serve(s.ln) }

func (s *ipcServe) shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	s.ln.Close() // removes the socket file (Shutdown closed it already, normally)
	return err
}

// errLiveSocket: another process serves the socket.
var errLiveSocket = errors.New("another server is listening on this socket; stop it first (a socket file left by a server that is gone would have been replaced)")

// listenUnix listens on path with mode 0600, first removing a stale socket
// file there. It refuses a live socket and a file that is not a socket.
func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, errors.New("the file exists and is not a socket")
		}
		if live(path) {
			return nil, errLiveSocket
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	old := umask(0o177) // the socket is created 0600, with no moment at a wider mode
	ln, err := net.Listen("unix", path)
	umask(old)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// live reports whether a server accepts connections on the socket at path.
// A refused dial means the file was left behind; any other failure (a
// full backlog, a permission) is taken as alive, so that serve never
// removes the socket of a running server.
func live(path string) bool {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return true
	}
	return !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, fs.ErrNotExist)
}
