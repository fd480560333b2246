#!/usr/bin/env bash
# The android-krait unknowns searched over their sourced ranges with the source audit's switches on (issue #16):
# the calibration ranking (Table 1/3 only), the point its rule adopts — written into assets/scenarios/android/*.toml —
# and the reachability of Corollaries 1–4 at every point, written to docs/calibration-android.md.
# usage: scripts/calibrate-android.sh [SAMPLES] [LOCAL] [ENDS] [ONLY] [REFINE]   (needs a release build: lcargo build --release -p gclab)
# LOCAL: points of the finer local search around each of the two best points (0: none). ENDS: "all", or
# comma-separated unknowns to run alone at both ends of their ranges (default: none). ONLY: comma-separated unknowns
# (newly added ones) searched at the presets' point, every other unknown staying where the presets have it. REFINE:
# rounds of a finer search around the point adopted so far, each in a box half the last (default: none).
set -euo pipefail
cd "$(dirname "$0")/.."
gclab="${CARGO_TARGET_DIR:-target}/release/gclab"
[ -x "$gclab" ] || { echo "calibrate-android.sh: $gclab missing; build it with: cargo build --release -p gclab" >&2; exit 1; }
exec python3 scripts/android_search.py "$gclab" --samples "${1:-16}" --local "${2:-0}" --ends "${3:-}" \
  --only "${4:-}" --refine "${5:-0}" --out docs/calibration-android.md --write-presets
