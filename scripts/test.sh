#!/usr/bin/env bash
# `make test`: every phase in order, each timed. The phase times are printed at the
# end (also after a failure) and written to build/phases.json; a phase over its
# budget in tests/time_budget.json fails the run, so growth shows when it happens.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
times=build/phases.tsv
: >"$times"

phase() {
  local name=$1 started status
  shift
  echo "==> $name: $*"
  started=$(date +%s.%N)
  "$@"
  status=$?
  printf '%s\t%s\t%s\n' "$name" "$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')" \
    "$status" >>"$times"
  return "$status"
}

run_phases() {
  phase setup make --no-print-directory setup &&
    phase check make --no-print-directory check &&
    phase lab make --no-print-directory lab-deploy &&
    phase integration make --no-print-directory integration-tests &&
    phase molecule make --no-print-directory molecule
}

run_phases
status=$?
.venv/bin/python scripts/phase_times.py "$times" tests/time_budget.json build/phases.json || status=1
exit "$status"
