module github.com/jetrpc/jetrpc/internal/scan/shapes/simdjson

go 1.26.0

replace github.com/jetrpc/jetrpc => ../../../..

require (
	github.com/jetrpc/jetrpc v0.0.0-00010101000000-000000000000
	github.com/minio/simdjson-go v0.4.5
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/cpuid/v2 v2.2.9 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
