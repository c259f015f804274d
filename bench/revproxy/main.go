// Command revproxy is the floor jetrpc proxy is measured against
// (bench/gateway.sh): net/http/httputil.ReverseProxy in front of one HTTP
// upstream, parsing nothing. Its transport keeps as many idle connections
// to the upstream as the load needs, so that it is not starved of them.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "serve HTTP on `ADDR`")
	upstream := flag.String("upstream", "", "forward to the HTTP `URL`")
	flag.Parse()
	u, err := url.Parse(*upstream)
	if err != nil || u.Host == "" {
		log.Fatalf("revproxy: --upstream %q: want an http:// URL", *upstream)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 4096, 4096
	rp.Transport = tr
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "listening http %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, rp))
}
