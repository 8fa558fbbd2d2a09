#!/usr/bin/env bash
# Measures the worst teardown time over RUNS runs (default 100) per case and
# prints it as a table: each component (runtime.Close and a spawn's cancel,
# lsp.Client.Close, mcp Host.Close, the headless runner's exit) against each
# misbehaving process tree (a setsid grandchild holding stdout, SIGTERM
# ignored, a full stdout pipe nobody reads, a stdout that an escaped process
# never closes). Not part of `go test ./...`: the tests it runs skip unless
# PMACS_TEARDOWN_RUNS is set. Every run also checks that the tree is gone.
# The packages run one at a time (-p 1) so that they do not time each other.
#
#   scripts/teardown.sh             # RUNS=100
#   RUNS=10 scripts/teardown.sh     # a quick look
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-100}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
PMACS_TEARDOWN_RUNS="$RUNS" go test -p 1 -count=1 -timeout 90m -run '^TestTeardownWorstCase$' -v \
  ./runtime ./kinds/procjob ./lsp ./mcp ./cmd/demo-editor >"$out" 2>&1 || { cat "$out"; exit 1; }

printf '| teardown | %s |\n' "grandchild | ignoreterm | fullpipe | neverclose"
printf '| --- | --- | --- | --- | --- |\n'
grep '^TEARDOWN' "$out" | awk -F'\t' '
  { key = $2; if (!(key in seen)) { seen[key] = 1; order[n++] = key }
    cell[key, $3] = $5 " (" $6 ")" ; runs = $4 }
  END {
    for (i = 0; i < n; i++) {
      k = order[i]
      printf "| %s | %s | %s | %s | %s |\n", k, cell[k, "grandchild"], cell[k, "ignoreterm"], cell[k, "fullpipe"], cell[k, "neverclose"]
    }
    printf "\nworst (median) ms over %s runs per case\n", runs
  }'
