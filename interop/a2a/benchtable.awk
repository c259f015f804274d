# benchtable.awk: one markdown table of medians from `go test -bench`
# output (interop/a2a/bench.sh and interop/acp/bench.sh): a row per
# benchmark (the -GOMAXPROCS suffix dropped), a column per unit, each cell
# the median of that benchmark's runs and, after a slash, how many runs.
/^Benchmark/ {
	name = $1
	sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; rows[++nrows] = name }
	for (i = 3; i + 1 <= NF; i += 2) {
		u = $(i + 1)
		if (!(u in useen)) { useen[u] = 1; units[++nunits] = u }
		k = name SUBSEP u
		vals[k, ++cnt[k]] = $i + 0
	}
}
function median(k,    n, i, j, t, a) {
	n = cnt[k]
	for (i = 1; i <= n; i++) a[i] = vals[k, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmtnum(v) {
	if (v >= 1000) return sprintf("%.0f", v)
	if (v >= 100) return sprintf("%.1f", v)
	if (v >= 1) return sprintf("%.2f", v)
	return sprintf("%.3g", v)
}
END {
	line = "| benchmark"
	sep = "|---"
	for (c = 1; c <= nunits; c++) { line = line " | " units[c]; sep = sep "|---:" }
	print line " |"
	print sep "|"
	for (r = 1; r <= nrows; r++) {
		line = "| " rows[r]
		for (c = 1; c <= nunits; c++) {
			k = rows[r] SUBSEP units[c]
			line = line " | " (cnt[k] ? fmtnum(median(k)) "/" cnt[k] : "")
		}
		print line " |"
	}
}
