//go:build unix

package main

import "syscall"

// umask sets the process's file mode creation mask and returns the old one.
func umask(mask int) int { return syscall.Umask(mask) }
