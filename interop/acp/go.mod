module github.com/jetrpc/jetrpc/interop/acp

go 1.26

require github.com/coder/acp-go-sdk v0.13.0
