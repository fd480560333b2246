#!/bin/sh
# Runs every fuzz target one after another for SECONDS each (default 300) on one core, seeded from fuzz/seeds/,
# growing fuzz/corpus/<target>/; crashes land in fuzz/artifacts/<target>/. Logs: fuzz/logs/<target>.log.
# Usage: fuzz/run-all.sh [SECONDS] [TARGET…]   (needs `cargo install cargo-fuzz` and the nightly toolchain)
set -u
cd "$(dirname "$0")"
secs=${1:-300}
[ $# -gt 0 ] && shift
targets=${*:-"trace_text trace_binary jvm_log logcat gc_csv pause_spans pause_records objects_csv heaptrack et2 scenario"}
mkdir -p logs
# The one known false leak report (a worker thread's TLS destructor list, freed as the thread exits) is suppressed;
# any other leak is still a finding.
export LSAN_OPTIONS="suppressions=$(pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# Build once, then run the binaries: editing the core while the fuzzers run does not change what is fuzzed.
cargo +nightly fuzz build || exit 1
bin=target/x86_64-unknown-linux-gnu/release
for t in $targets; do
    mkdir -p "corpus/$t"
    echo "== $t: ${secs}s =="
    mkdir -p "artifacts/$t"
    "$bin/$t" -artifact_prefix="artifacts/$t/" "corpus/$t" "seeds/$t" \
        -jobs=1 -workers=1 -max_total_time="$secs" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=16384 -print_final_stats=1 \
        >"logs/$t.log" 2>&1
    rc=$?
    cat fuzz-0.log >>"logs/$t.log" 2>/dev/null; rm -f fuzz-0.log
    echo "$t: exit $rc; $(grep -E '^stat::number_of_executed_units' "logs/$t.log")"
    grep -E 'SUMMARY|ERROR|panicked|artifact_prefix|Test unit written' "logs/$t.log" | head -5
done
