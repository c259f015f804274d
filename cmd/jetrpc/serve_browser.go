package main

// NOTE: the flags of "jetrpc serve" for browsers (#20): --ui mounts the web
// console (package ui) at /ui/ on the HTTP listener.

import (
	"errors"
	"flag"
	"net/http"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/ui"
)

// browserFlags are what the serve flags for browsers ask for.
type browserFlags struct {
	ui bool // --ui
}

func (b *browserFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&b.ui, "ui", false, "serve the web console at GET /ui/ on the HTTP listener")
}

// check refuses what cannot work with the listeners asked for.
func (b *browserFlags) check(httpAddr string) error {
	if b.ui && httpAddr == "" {
		return errors.New("--ui: needs the HTTP listener (--http ADDR)")
	}
	return nil
}

// apply sets the servers' options for these flags.
func (b *browserFlags) apply(o *netserver.Options) {
	if b.ui {
		o.Mounts = map[string]http.Handler{"/ui/": ui.Handler(nil)} // the page posts to / and opens /ws
	}
}
