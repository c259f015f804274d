//go:build !race

package main

// blobSize is the blob the binary's streaming tests ask for: 1 GiB (a
// smaller one under -race, whose client side is too slow for it).
const blobSize = 1 << 30
