#!/usr/bin/env bash
# A longer fuzzing campaign: every target (or those named) for SECONDS each, JOBS at a time,
# keeping each target's corpus in fuzz/corpus/<target>/ (not committed) between campaigns.
# Crash inputs land in fuzz/artifacts/<target>/: fix the bug, then copy the input into
# tests/fixtures/fuzz-regressions/<target>/ so `cargo test` replays it for good.
#
#   fuzz/campaign.sh [SECONDS=600] [JOBS=2] [TARGET...]
#
# Prints one line per target: runs, seconds, and whether it crashed.
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
jobs=${2:-2}
shift 2 2>/dev/null || shift $#
targets=("$@")
[ ${#targets[@]} -eq 0 ] && mapfile -t targets < <(cargo fuzz list)
cargo fuzz build --sanitizer none >/dev/null 2>&1 || { echo "build failed"; exit 1; }
mkdir -p logs
run() {
    local t=$1
    mkdir -p "corpus/$t"
    cargo fuzz run --sanitizer none "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 >"logs/$t.log" 2>&1
    local rc=$?
    local done_line
    done_line=$(grep -E "^Done" "logs/$t.log" | tail -1)
    if [ $rc -eq 0 ]; then
        echo "$t: ${done_line:-no summary} (corpus $(ls "corpus/$t" | wc -l))"
    else
        echo "$t: CRASH (exit $rc), see fuzz/logs/$t.log and fuzz/artifacts/$t/"
    fi
}
export -f run
export seconds
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run {}'
