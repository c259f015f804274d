package bench

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame"
)

// WSServer is the transport baseline for WebSocket benchmarks: a net/http
// server whose GET /ws is upgraded with fasthttp/websocket's Upgrader (the
// same package, with the same buffer sizes, as jetrpc's /ws). Each
// connection reads a message, answers it with Handle, writes the answer as
// one text message (nothing when Handle appends nothing) and reads the next.
// With StdlibLine(NewStdlib()) as Handle it is the encoding/json baseline
// over WebSocket.
type WSServer struct {
	// Handle appends the answer to msg to dst.
	Handle func(dst, msg []byte) []byte

	mu     sync.Mutex
	srv    *http.Server
	conns  map[*websocket.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

var wsUpgrader = websocket.Upgrader{
	ReadBufferSize:  4 << 10,
	WriteBufferSize: 4 << 10,
	CheckOrigin:     func(*http.Request) bool { return true },
}

// Serve accepts connections on ln until Close.
func (s *WSServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ln.Close()
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	s.conns = map[*websocket.Conn]struct{}{}
	srv := s.srv
	s.mu.Unlock()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *WSServer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/ws" {
		http.NotFound(w, r)
		return
	}
	ws, err := wsUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered with an HTTP error
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.conns[ws] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		ws.Close()
		s.mu.Lock()
		delete(s.conns, ws)
		s.mu.Unlock()
		s.wg.Done()
	}()
	s.serveConn(ws)
}

// serveConn answers messages one after the other until the connection ends.
func (s *WSServer) serveConn(ws *websocket.Conn) {
	ws.SetReadLimit(frame.DefaultMaxMessage)
	var in bytes.Buffer
	var out []byte
	for {
		_, r, err := ws.NextReader()
		if err != nil {
			return
		}
		in.Reset()
		if _, err := in.ReadFrom(r); err != nil {
			return
		}
		if out = s.Handle(out[:0], in.Bytes()); len(out) > 0 {
			if err := ws.WriteMessage(websocket.TextMessage, out); err != nil {
				return
			}
		}
	}
}

// Close stops accepting, closes every connection and waits for them.
func (s *WSServer) Close() error {
	s.mu.Lock()
	s.closed = true
	srv := s.srv
	for ws := range s.conns {
		ws.NetConn().Close()
	}
	s.mu.Unlock()
	if srv != nil {
		srv.Close() // the listener and the connections not upgraded
	}
	s.wg.Wait()
	return nil
}
