#!/usr/bin/env bash
# Runs every Go fuzz target of reviewd for a while each:
#
#   ./scripts/fuzz.sh            # 10 minutes per target
#   ./scripts/fuzz.sh 15s        # a short pass (what CI runs from scripts/test.sh)
#   ./scripts/fuzz.sh 1h FuzzMediaUpload   # one target (a name or a regular expression)
#
# The first argument is the time per target, as go test's -fuzztime takes it. The
# targets are found in the *_test.go files (func FuzzXxx(f *testing.F)). Their seed
# corpora are the f.Add calls plus testdata/fuzz/FuzzXxx/ beside each package; what
# the fuzzer learns goes to Go's cache (go env GOCACHE)/fuzz, not to the repository.
# A failing input is written to testdata/fuzz/FuzzXxx/ of its package: it is a bug
# to fix, and the file stays as a regression test (plain `go test` runs it).
#
# The first run builds every package with coverage instrumentation (a few minutes on
# a small machine); later runs reuse the build cache.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

fuzztime=${1:-10m}
only=${2:-}

# package<TAB>target for every fuzz target.
mapfile -t targets < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' app jobs store 2>/dev/null |
  sort | while read -r file; do
    pkg=./$(dirname "$file")
    grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed 's/^func //' | while read -r name; do
      printf '%s\t%s\n' "$pkg" "$name"
    done
  done)

if ((${#targets[@]} == 0)); then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

failed=()
ran=0
for t in "${targets[@]}"; do
  pkg=${t%%$'\t'*}
  name=${t#*$'\t'}
  if [[ -n $only && ! $name =~ $only ]]; then
    continue
  fi
  printf '\n==> %s %s (%s)\n' "$pkg" "$name" "$fuzztime" >&2
  # -fuzzminimizetime 10x: SQLite makes most inputs look new to the coverage
  # counters; minimizing each for the default minute would leave no time to fuzz.
  out=$(mktemp)
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 10x "$pkg" 2>&1 | tee "$out"; then
    # Go's fuzzing engine can report "context deadline exceeded" when a busy worker
    # stops late at the end of -fuzztime, with no failing input. That is not a
    # finding: run the target once more. A real failure writes its input and fails.
    if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
      echo "fuzz: $name stopped late without a failing input; running it once more" >&2
      go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 10x "$pkg" || failed+=("$pkg $name")
    else
      failed+=("$pkg $name")
    fi
  fi
  rm -f "$out"
  ran=$((ran + 1))
done

if ((ran == 0)); then
  echo "fuzz: no target matches ${only}" >&2
  exit 1
fi
if ((${#failed[@]})); then
  printf 'fuzz: FAILED: %s\n' "${failed[@]}" >&2
  echo "fuzz: the failing inputs are under testdata/fuzz/ of each package; go test -run <Target>/<file> replays one" >&2
  exit 1
fi
echo "fuzz: ${ran} targets passed (${fuzztime} each)" >&2
