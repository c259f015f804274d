package main

// NOTE: the flags of "jetrpc serve" for browsers (#20): --ui mounts the web
// console (package ui) at /ui/ on the HTTP listener; --allow-host is the
// Host check of the HTTP listener (guard.HostPolicy), on by default as
// go-ethereum's --http.vhosts is. CORS needs no flag of its own: the
// Origin policy of --allow-origin (security.go) drives it.

import (
	"errors"
	"flag"
	"fmt"
	"net/http"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/ui"
)

// browserFlags are what the serve flags for browsers ask for.
type browserFlags struct {
	ui        bool   // --ui
	allowHost string // --allow-host LIST

	hosts *guard.HostPolicy
}

func (b *browserFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&b.ui, "ui", false, "serve the web console at GET /ui/ on the HTTP listener")
	fs.StringVar(&b.allowHost, "allow-host", "", "comma-separated host names the HTTP listener answers besides localhost and IP\n"+
		"literals, any port (* for every host); another Host header gets 403 (against DNS rebinding)")
}

// check refuses what cannot work with the listeners asked for.
func (b *browserFlags) check(httpAddr string) error {
	if b.ui && httpAddr == "" {
		return errors.New("--ui: needs the HTTP listener (--http ADDR)")
	}
	var err error
	if b.hosts, err = guard.ParseHostPolicy(b.allowHost); err != nil {
		return fmt.Errorf("--allow-host: %v", err)
	}
	return nil
}

// apply sets the servers' options and their guard's for these flags.
func (b *browserFlags) apply(o *netserver.Options, g *guard.Options) {
	g.Hosts = b.hosts
	if b.ui {
		o.Mounts = map[string]http.Handler{"/ui/": ui.Handler(nil)} // the page posts to / and opens /ws
	}
}
