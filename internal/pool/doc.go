// Package pool holds jetrpc's reusable resources: byte buffers and the
// bounded pool of worker goroutines that runs handlers.
//
//   - Buffers (and GetBuffer/PutBuffer on a shared instance) are typed
//     bytebufferpool pools that keep only buffers of at most
//     MaxPooledBuffer bytes of capacity, so one huge message does not pin
//     memory for the life of the process.
//   - Workers runs Tasks on goroutines created on demand, parked on a stack
//     when idle and reused. Keep of the idle ones wait up to IdleTimeout for
//     work; the others exit after Linger (100 ms), so that a burst leaves no
//     crowd of parked goroutines and their stacks behind. Submit
//     never queues: it hands the task to an idle or new worker, or reports
//     false so that the caller can run it inline or answer "overloaded".
//     In steady state Submit does not allocate.
//
// The package imports the standard library and valyala/bytebufferpool only.
package pool
