//go:build linux && !race

package rawio

import (
	"syscall"
	"unsafe"
)

// sys makes the read or write system call trap on fd with b, raw: the
// scheduler is not told (see the package doc).
func sys(trap, fd uintptr, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return int(n), e
}
