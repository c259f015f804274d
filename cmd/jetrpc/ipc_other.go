//go:build !unix

package main

// umask does nothing where there is no umask; the socket's mode is set
// right after it is created.
func umask(mask int) int { return 0 }
