// Package compare is the measurement harness of "jetrpc bench": it starts
// jetrpc (the demo methods) and the encoding/json baseline on loopback in
// this process, or names an external target, drives each with the same
// load (bench/load), alternating round after round, measures the process's
// CPU time and heap allocations while each server is loaded, and reports
// req/s, latency quantiles, per-request costs and their ratios as a table,
// as JSON or as an SVG bar chart.
//
// It is a package of its own, beside bench/load rather than in it, because
// it needs what the load generator must not: the servers (netserver,
// dispatch, bench/demo, the baselines of bench), process accounting and
// the report formats. bench/load stays a load generator that any caller,
// bench/peers included, drives against any server.
package compare
