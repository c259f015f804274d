//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package netserver

import "errors"

func setReusePort(uintptr) error {
	return errors.New("netserver: SO_REUSEPORT is not supported on this system")
}
