// Package mcpbench compares jetrpc's MCP server (jetrpc serve --mcp) with
// servers on the official Go SDK (github.com/modelcontextprotocol/go-sdk
// v1.8.0, schema cache on) and on mcp-go (github.com/mark3labs/mcp-go
// v1.2.1), each in its own process, with one load generator: tools/call
// echo over Streamable HTTP from 64 concurrent clients on 2025-11-25 (a
// session from initialize) and 2026-07-28 (stateless), req/s and the
// server's allocations per call (runtime.MemStats deltas over the run:
// jetrpc's go_memstats_* from its admin listener's /metrics, the peers'
// from their /debug/mem), RSS and live heap per idle session (1,000
// sessions), and the time to the first progress notification of
// countdown (median and p99 of 200 calls).
//
// Run it from the repository's root; it builds jetrpc at each revision
// given (git worktrees), the peers and the load generator, and prints one
// table:
//
//	bench/mcp/run.sh                 # jetrpc at HEAD
//	bench/mcp/run.sh 5f21269 HEAD    # before and after
//
// ROUNDS (3), DURATION (5s), CLIENTS (64), SESSIONS (1000), PROGRESS (200)
// and OUT (/tmp/jetrpc-mcpbench) tune it.
package mcpbench
