//go:build unix && !linux

package rawio

import "syscall"

// sys makes the read or write system call trap on fd with b. Here the
// scheduler is told, as net.Conn does (system calls go through the C
// library); only Linux makes them raw.
func sys(trap, fd uintptr, b []byte) (int, syscall.Errno) {
	var n int
	var err error
	if trap == syscall.SYS_READ {
		n, err = syscall.Read(int(fd), b)
	} else {
		n, err = syscall.Write(int(fd), b)
	}
	if err != nil {
		return 0, err.(syscall.Errno)
	}
	return n, 0
}
