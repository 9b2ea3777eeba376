#!/usr/bin/env bash
# The newcomer's path, checked end to end: clone the repository fresh, run exactly the README's two
# commands (npm ci && npm run demo; npm test), then every demo scenario, and check each report, verdict
# file and exit code. Usage: scripts/check-newcomer-path.sh [REPO] (default: this checkout).
set -euo pipefail
repo="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/clone"
cd "$work/clone"

readme_commands=$(grep -E '^npm ci && npm run demo|^npm test' README.md | sed 's/ *#.*$//' | head -2)
expected=$'npm ci && npm run demo\nnpm test'
if [ "$readme_commands" != "$expected" ]; then
  echo "README's two commands changed; this script checks: $expected" >&2
  exit 1
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
# A scenario's check that fails is recorded and the path goes on, so one run measures every step; the
# script exits 1 at the end, listing them.
failures=()
failed() { echo "FAIL: $*" >&2; failures+=("$*"); }

check_demo() { # scenario, expected verdicts (regex), expected gate exit code (regex), log file
  local scenario=$1 verdicts=$2 gate_exit=$3 log=$4
  local dir=vllm-perf-gate-demo
  [ -s "$dir/report.md" ] || { failed "$scenario: no report.md"; return; }
  [ -s "$dir/comment.md" ] || { failed "$scenario: no comment.md"; return; }
  [ -s "$dir/verdict.json" ] || { failed "$scenario: no verdict.json"; return; }
  local verdict
  verdict=$(node -e 'console.log(require(process.argv[1]).verdict)' "$PWD/$dir/verdict.json")
  [[ "$verdict" =~ ^($verdicts)$ ]] || { failed "$scenario: verdict $verdict, expected $verdicts"; return; }
  grep -qE "^## .*vllm-perf-gate: " "$dir/report.md" || { failed "$scenario: report has no headline"; return; }
  grep -qE "^## .*vllm-perf-gate: " "$dir/comment.md" || { failed "$scenario: comment has no headline"; return; }
  grep -qE "gate would have exited ($gate_exit) " "$log" || { failed "$scenario: gate exit code not $gate_exit"; return; }
  echo "ok: $scenario -> $verdict ($(grep -oE 'gate would have exited [0-9]' "$log"))"
}

# Timings are printed with their conditions: the machine's cores and its load (1-minute average) at
# each step's start and end, since a shared machine's load moves them by 2x and more.
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
timings=()
timed() { # label, seconds, load at start
  local line="$1: $2 s (load $3 -> $(load))"
  timings+=("$line")
  echo "   $line"
}
echo "== on $(nproc 2>/dev/null || echo "?") cores, load $(load) (1-min average), $(date -u +%Y-%m-%dT%H:%MZ)"

start=$(date +%s)
echo "== npm ci && npm run demo"
l0=$(load)
npm ci --no-audit --no-fund > install.log 2>&1 || { tail -20 install.log; fail "npm ci exited $?"; }
t1=$(date +%s)
timed "npm ci" $(( t1 - start )) "$l0"
l0=$(load)
if npm run demo > demo-tradeoff.log 2>&1; then
  timed "npm run demo (tradeoff)" $(( $(date +%s) - t1 )) "$l0"
  check_demo tradeoff "regression" "1" demo-tradeoff.log
else
  failed "npm run demo exited $?"
fi

for spec in "clean:pass|inconclusive:0" "regression:regression:1" "flaky:inconclusive:0" "capacity:pass|inconclusive:0" "sessions:regression:1"; do
  IFS=: read -r scenario verdicts gate_exit <<<"$spec"
  t0=$(date +%s)
  l0=$(load)
  if node dist/cli.js demo --scenario "$scenario" > "demo-$scenario.log" 2>&1; then
    timed "demo --scenario $scenario" $(( $(date +%s) - t0 )) "$l0"
    check_demo "$scenario" "$verdicts" "$gate_exit" "demo-$scenario.log"
  else
    failed "demo --scenario $scenario exited $?"
  fi
done

echo "== npm test"
t0=$(date +%s)
l0=$(load)
npm test > test.log 2>&1 || { tail -40 test.log; failed "npm test"; }
timed "npm test" $(( $(date +%s) - t0 )) "$l0"
sed "s/\x1b\[[0-9;]*m//g" test.log | grep -E "Tests +[0-9]+ (passed|failed)" | tail -1
echo "== timings"
printf '   %s\n' "${timings[@]}"
if [ "${#failures[@]}" -gt 0 ]; then
  echo "newcomer path FAILED in $(( $(date +%s) - start )) s:" >&2
  printf '   %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "newcomer path OK in $(( $(date +%s) - start )) s"
