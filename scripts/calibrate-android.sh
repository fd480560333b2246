#!/usr/bin/env bash
# The android-krait unknowns searched over their sourced ranges (issue #16): the calibration ranking (Table 1/3
# only) and the reachability of Corollaries 1–4 at every point, written to docs/calibration-android.md.
# usage: scripts/calibrate-android.sh [SAMPLES] [LOCAL]   (needs a release build: lcargo build --release)
# LOCAL: points of the finer local search around LOCAL_CENTRES in android_search.py, each (0: none).
set -euo pipefail
cd "$(dirname "$0")/.."
gclab=target/release/gclab
[ -x "$gclab" ] || { echo "calibrate-android.sh: $gclab missing; build it with: cargo build --release" >&2; exit 1; }
exec python3 scripts/android_search.py "$gclab" --samples "${1:-16}" --local "${2:-0}" --out docs/calibration-android.md
