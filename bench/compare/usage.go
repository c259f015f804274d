package compare

import (
	"runtime/metrics"
	"syscall"
	"time"
)

// usage is the process's CPU time and heap allocations (so far, or over a
// span of time).
type usage struct {
	cpu                      time.Duration // user + system
	allocBytes, allocObjects uint64
}

// readUsage reads the process's usage so far: CPU time from getrusage,
// allocations from runtime/metrics.
func readUsage() usage {
	var u usage
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	ms := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(ms)
	if ms[0].Value.Kind() == metrics.KindUint64 {
		u.allocBytes = ms[0].Value.Uint64()
	}
	if ms[1].Value.Kind() == metrics.KindUint64 {
		u.allocObjects = ms[1].Value.Uint64()
	}
	return u
}

// sub is the usage from before to u.
func (u usage) sub(before usage) usage {
	return usage{u.cpu - before.cpu, u.allocBytes - before.allocBytes, u.allocObjects - before.allocObjects}
}

func (u *usage) add(o usage) {
	u.cpu += o.cpu
	u.allocBytes += o.allocBytes
	u.allocObjects += o.allocObjects
}
