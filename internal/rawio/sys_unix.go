//go:build unix && (!linux || race)

package rawio

import "syscall"

// sys makes the read or write system call trap on fd with b. Here the
// scheduler is told, as net.Conn does: outside Linux system calls go
// through the C library, and under the race detector syscall.Read and
// syscall.Write tell it that bytes written to one descriptor and read from
// another order what came before (as for net.Conn), which tests rely on.
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
