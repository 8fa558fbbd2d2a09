#!/usr/bin/env bash
# Runs every fuzz target in the module for a fixed budget each and prints a
# table of execs and findings. Not part of `go test ./...`, which only replays
# the committed seed corpora.
#
#   scripts/fuzz.sh                 # FUZZTIME=60s per target
#   FUZZTIME=10m scripts/fuzz.sh    # longer budget
#   scripts/fuzz.sh ./grep          # only the targets under these packages
#
# A failing input is written by go test under the package's
# testdata/fuzz/<Target>/; the run goes on to the next target and the script
# exits 1 at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-60s}"
LOGDIR="${LOGDIR:-$(mktemp -d)}"
mkdir -p "$LOGDIR"
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(./...)
fi

# Every func FuzzXxx(f *testing.F) in the chosen packages' test files.
targets=()
while IFS= read -r dir; do
  [ -n "$dir" ] || continue
  for name in $(grep -ho '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' "$dir"/*_test.go 2>/dev/null | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/' | sort -u); do
    targets+=("$dir $name")
  done
done < <(go list -f '{{.Dir}}' "${pkgs[@]}")

if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz targets found" >&2
  exit 1
fi

status=0
rows=()
for t in "${targets[@]}"; do
  dir="${t% *}"
  name="${t##* }"
  rel="./$(realpath --relative-to=. "$dir")"
  slug="${rel#./}"
  log="$LOGDIR/${slug//\//_}_$name.log"
  echo "== $rel $name ($FUZZTIME)" >&2
  start=$(date +%s)
  go test -run XXX -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$rel" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  interesting=$(grep -o 'new interesting: [0-9]*' "$log" | tail -1 | awk '{print $3}')
  if [ $rc -eq 0 ]; then
    finding="none"
  else
    status=1
    finding="FAIL: $(grep -m1 -o 'testdata/fuzz/[^ ]*' "$log" || echo "see $log")"
  fi
  rows+=("$(printf '%-10s %-40s %12s %8s %8s  %s' "$rel" "$name" "${execs:-0}" "${interesting:-0}" "${secs}s" "$finding")")
done

echo
printf '%-10s %-40s %12s %8s %8s  %s\n' package target execs new wall findings
for r in "${rows[@]}"; do
  echo "$r"
done
echo
echo "logs: $LOGDIR"
exit $status
