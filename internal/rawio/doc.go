// Package rawio reads and writes a TCP or Unix socket with raw system calls:
// syscall.RawSyscall instead of the syscall.Syscall that net.Conn uses, on Linux,
// waiting in the runtime's network poller exactly as net.Conn does (its
// deadlines and Close apply). On other Unix systems, and under the race
// detector, the calls are the usual ones (Conn then only lets a caller write without waiting:
// TryWrite); elsewhere Of returns nil and the caller uses the net.Conn.
//
// Why: syscall.Syscall tells the scheduler a system call begins
// (entersyscall), and when every P of the process was idle the runtime's
// monitor thread (sysmon) sleeps, so that call first wakes it (a futex wake
// and a thread switch, then its 20 µs naps until the process is idle
// again). A server that answers one call at a time goes idle between calls;
// a proxy twice per call (waiting for the upstream, then for the client), so
// every forwarded call paid one to two extra thread wake-ups and a quarter
// of the proxy's CPU for them. A read or write of a non-blocking socket
// never waits, so telling the scheduler buys nothing. The monitor still
// runs whenever the process is busy, and a goroutine in a raw system call
// holds its P for as long as the call lasts, as it would for any
// computation that long.
//
// A Conn has one reader and one writer at a time (Read, and Write or
// TryWrite, may run at the same time as each other).
package rawio
