//go:build race || !(amd64 || arm64 || loong64 || mips64 || mips64le || ppc64 || ppc64le || riscv64 || s390x || wasm)

package percpu

// atomicAdds is true under the race detector (which would report the
// plain adds racing with Load's atomic reads, harmless as they are) and
// where a uint64 is not a machine word (a plain store of it could be
// torn): adds to a P's own shard are atomic, uncontended.
const atomicAdds = true
