//go:build race

package main

// blobSize is 64 MiB under -race (see blob_size_test.go).
const blobSize = 64 << 20
