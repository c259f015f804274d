//go:build !race && (amd64 || arm64 || loong64 || mips64 || mips64le || ppc64 || ppc64le || riscv64 || s390x || wasm)

package percpu

// atomicAdds is false: a P adds to its own shard with plain adds (see the
// NOTE in percpu.go).
const atomicAdds = false
