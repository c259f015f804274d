// Command tcprelay is the latency floor of a TCP proxy written in Go, beside
// which bench/gateway.sh measures jetrpc proxy's TCP path: each client
// connection gets a connection of its own to the upstream and two
// goroutines that copy bytes, one each way, through a 64 KiB buffer with
// plain reads and writes (no splice, no parsing, no routing, no id
// rewriting). A call through it pays what any Go proxy pays, whatever it
// does with the bytes: the two wake-ups of the proxy's goroutines from the
// network poller, and a read and a write of each message.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "accept TCP on `ADDR`")
	upstream := flag.String("upstream", "", "relay to the TCP `ADDR`")
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
		go relay(c, *upstream)
	}
}

// relay copies between c and a new connection to upstream until either
// side ends.
func relay(c net.Conn, upstream string) {
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		log.Printf("tcprelay: %v", err)
		c.Close()
		return
	}
	go pipe(u, c)
	pipe(c, u)
}

// pipe copies from src to dst, then closes both.
func pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
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
