// Command tcprelay is the latency floor of a TCP proxy written in Go, beside
// which bench/gateway.sh measures jetrpc proxy's TCP path: each client
// connection gets a connection of its own to the upstream and two
// goroutines that copy bytes, one each way, through a 64 KiB buffer with
// plain reads and writes (no splice, no parsing, no routing, no id
// rewriting). A call through it pays what any Go proxy pays, whatever it
// does with the bytes: the two wake-ups of the proxy's goroutines from the
// network poller, and a read and a write of each message.
//
// By default it reads and writes as jetrpc does, with raw system calls
// (internal/rawio), so that it is the floor of jetrpc proxy's TCP path;
// with --net, through net.Conn, as a Go proxy usually does: each call then
// also wakes the runtime's monitor thread after the process idled.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"

	"github.com/jetrpc/jetrpc/internal/rawio"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "accept TCP on `ADDR`")
	upstream := flag.String("upstream", "", "relay to the TCP `ADDR`")
	useNet := flag.Bool("net", false, "read and write through net.Conn, not raw system calls")
	flag.Parse()
	if *upstream == "" {
		log.Fatal("tcprelay: --upstream ADDR is required")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "listening tcp %s\n", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go relay(c, *upstream, *useNet)
	}
}

// relay copies between c and a new connection to upstream until either
// side ends.
func relay(c net.Conn, upstream string, useNet bool) {
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		log.Printf("tcprelay: %v", err)
		c.Close()
		return
	}
	var cr, ur io.ReadWriter = c, u
	if !useNet {
		if rc, ru := rawio.Of(c), rawio.Of(u); rc != nil && ru != nil {
			cr, ur = rc, ru
		}
	}
	go pipe(ur, cr, u, c)
	pipe(cr, ur, c, u)
}

// pipe copies from src to dst, then closes both connections.
func pipe(dst, src io.ReadWriter, a, b net.Conn) {
	defer a.Close()
	defer b.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
