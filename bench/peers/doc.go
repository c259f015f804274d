// Package peers serves the bench cases with other Go JSON-RPC 2.0 engines,
// so that bench/load can put the same load on them as on jetrpc and the
// encoding/json baseline. It is a separate module: these dependencies never
// enter jetrpc's go.mod.
package peers
