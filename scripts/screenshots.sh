#!/usr/bin/env bash
# Regenerates screenshots/ (shown in the README): opens the real app window under Xvfb once per view and saves
# what it shows. The app reads GCLAB_SCREENSHOT (save the first complete frame as PNG and close) and
# GCLAB_VIEW (overview|layout|mmu|energy|cpu|sweep|tradeoff|pareto), GCLAB_THEME=dark, GCLAB_ZOOM, GCLAB_PLAYHEAD (seconds) and
# GCLAB_COMPARE=COLLECTOR (pin the first run as baseline, then run COLLECTOR), GCLAB_PRESET=NAME and
# GCLAB_VARIANTS=1 (overlay the five android variants' MinMU curves) — see
# app/src/gui/mod.rs.
# GCLAB_BIN=path uses an already built binary instead of building the release one.
# `--matrix DIR [FILTER]` instead renders the legibility matrix of #19 item 5 into DIR (not screenshots/): every
# view × {1280x720, 1920x1080} × zoom {1, 1.5, 2} × presenting {off, on}, and every lesson step presenting at
# 1280x720 × zoom {1.5, 2}; names are [android-]VIEW-WxH-zZOOM[-present].png and lesson-ID-N-WxH-zZOOM.png. FILTER (a
# shell glob over those names without .png) renders only the matching ones.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-system.sh test
bin="${GCLAB_BIN:-${CARGO_TARGET_DIR:-target}/release/gclab}"
[ -n "${GCLAB_BIN:-}" ] || cargo build --release -q -p gclab
mkdir -m 700 -p .xdg && export XDG_RUNTIME_DIR="$PWD/.xdg"
if [ "${1:-}" = --matrix ]; then
  out=${2:?usage: screenshots.sh --matrix DIR [FILTER]}
  filter=${3:-*}
  mkdir -p "$out" && out=$(cd "$out" && pwd)
  tmp=$(mktemp -d)
  "$bin" sweep preset:kvm/kwml --vary collector.kind=base,k-allocation,adaptive --vary collector.k=10,50,200,1000 \
    --json "$tmp/sweep.json" >/dev/null
  cell() {
    local name=$1
    shift
    # shellcheck disable=SC2053 # FILTER is a glob on purpose
    [[ $name == $filter ]] || return 0
    env GCLAB_SCREENSHOT="$out/$name.png" "$@" \
      timeout 300 xvfb-run -a -s "-screen 0 3400x2400x24 -nolisten tcp" "$bin" >/dev/null 2>&1 ||
      echo "FAILED $name" >&2
    echo "$out/$name.png"
  }
  for size in 1280x720 1920x1080; do
    for zoom in 1 1.5 2; do
      for present in 0 1; do
        suffix=""
        [ $present = 1 ] && suffix=-present
        for view in overview layout mmu energy sweep tradeoff; do
          cell "$view-$size-z$zoom$suffix" GCLAB_VIEW=$view GCLAB_PLAYHEAD=0.5 GCLAB_WINDOW=$size GCLAB_ZOOM=$zoom \
            GCLAB_PRESENT=$present
        done
        # The CPU views need a platform with cores: android (the overview then has CPU lanes too).
        for view in overview cpu; do
          cell "android-$view-$size-z$zoom$suffix" GCLAB_VIEW=$view GCLAB_PLAYHEAD=8 GCLAB_WINDOW=$size \
            GCLAB_ZOOM=$zoom GCLAB_PRESENT=$present GCLAB_PRESET=android/quadrant
        done
        cell "pareto-$size-z$zoom$suffix" GCLAB_VIEW=pareto GCLAB_OPEN="$tmp/sweep.json" GCLAB_WINDOW=$size \
          GCLAB_ZOOM=$zoom GCLAB_PRESENT=$present
      done
    done
  done
  for lesson in $("$bin" lesson list); do
    steps=$(grep -c '^\[\[steps\]\]' "assets/lessons/$lesson.toml" 2>/dev/null || echo 0)
    for n in $(seq 1 "$steps"); do
      for zoom in 1.5 2; do
        cell "lesson-$lesson-$n-1280x720-z$zoom" GCLAB_LESSON="$lesson" GCLAB_STEP="$n" GCLAB_PRESENT=1 \
          GCLAB_WINDOW=1280x720 GCLAB_ZOOM=$zoom
      done
    done
  done
  rm -rf "$tmp"
  exit 0
fi
mkdir -p screenshots
shot() {
  local name=$1
  shift
  # A screen much larger than the 1500x940 window keeps Xvfb's pointer (at the screen's centre) off the window,
  # so no plot shows a hover cursor.
  env GCLAB_SCREENSHOT="$PWD/screenshots/$name.png" "$@" \
    timeout 120 xvfb-run -a -s "-screen 0 3400x2400x24 -nolisten tcp" "$bin" >/dev/null 2>&1
  echo "wrote screenshots/$name.png"
}
shot overview GCLAB_PLAYHEAD=0.5
shot compare GCLAB_PLAYHEAD=0.5 GCLAB_COMPARE=base
shot heap-layout GCLAB_VIEW=layout GCLAB_PLAYHEAD=0.5
shot minmu GCLAB_VIEW=mmu GCLAB_COMPARE=base
shot sweep GCLAB_VIEW=sweep
shot dark-projector GCLAB_THEME=dark GCLAB_ZOOM=1.5 GCLAB_VIEW=layout GCLAB_PLAYHEAD=0.5 GCLAB_COMPARE=k-allocation
# The overview at a projector's 1280x720 and 200 % beside the knob panel: one column, map over occupancy, no scroll.
shot overview-720p-200 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=2 GCLAB_PLAYHEAD=0.5
shot android-overview GCLAB_PRESET=android/quadrant GCLAB_PLAYHEAD=8 GCLAB_COMPARE=fg
shot android-sweep GCLAB_PRESET=android/quadrant GCLAB_VIEW=sweep
shot android-minmu GCLAB_PRESET=android/quadrant GCLAB_VIEW=mmu GCLAB_VARIANTS=1
shot android-layout GCLAB_PRESET=android/jack GCLAB_VIEW=layout GCLAB_PLAYHEAD=4
# A recorded program (jq under heaptrack) re-simulated as the workload under KVM's adaptive collector.
shot trace-workload GCLAB_PRESET=trace/jq GCLAB_VIEW=layout GCLAB_PLAYHEAD=0.05
# A real GC log (HotSpot G1, JDK 17) and an Android logcat opened in the app.
jvm_log=../shared/data/jvm-logs/jdk17-g1-xmx128m.log
[ -f "$jvm_log" ] || jvm_log=tests/fixtures/logs/jdk17-serial-xmx128m.log
shot gc-log GCLAB_OPEN="$PWD/$jvm_log" GCLAB_PLAYHEAD=3
shot gc-log-android GCLAB_OPEN="$PWD/tests/fixtures/logs/dalvik-logcat.txt" GCLAB_PLAYHEAD=0.2
# ZGC: sub-millisecond pauses, its concurrent phases beneath them, the heap from its cycle lines.
zgc_log=../shared/data/jvm-logs/jdk17-zgc-xmx256m.log
[ -f "$zgc_log" ] && shot gc-log-zgc GCLAB_OPEN="$PWD/$zgc_log" GCLAB_PLAYHEAD=10
# A recorded trace (the default scenario's objects, written by `gclab trace record`) replayed as recorded.
tmp=$(mktemp -d)
"$bin" trace record preset:default -o "$tmp/kwml.gct" >/dev/null
shot trace-replay GCLAB_OPEN="$tmp/kwml.gct" GCLAB_VIEW=layout GCLAB_PLAYHEAD=0.6
# The Pareto explorer on a merged sweep: 3 collectors × 4 k × 3 bank sizes of the default application.
"$bin" sweep preset:kvm/kwml --vary collector.kind=base,k-allocation,adaptive --vary collector.k=10,50,200,1000 \
  --vary heap.bank_size=4KiB,8KiB,16KiB --json "$tmp/sweep.json"
shot pareto GCLAB_OPEN="$tmp/sweep.json" GCLAB_VIEW=pareto
rm -rf "$tmp"
# A real program's malloc trace (jq under heaptrack, embedded): terabytes of address space, 8 MiB of it used.
shot trace-replay-heaptrack GCLAB_OPEN="$PWD/assets/traces/jq.gctrace.zst" GCLAB_VIEW=layout GCLAB_PLAYHEAD=0.04
# Lessons in presentation mode at a projector's 1280x720 and 150 % zoom (GCLAB_LESSON, GCLAB_STEP, GCLAB_PRESENT).
shot lesson-gated-banks-2 GCLAB_LESSON=gated-banks-adaptive GCLAB_STEP=2 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-gated-banks-4 GCLAB_LESSON=gated-banks-adaptive GCLAB_STEP=4 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-cost-4 GCLAB_LESSON=cost-of-a-collection GCLAB_STEP=4 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-cost-4-200 GCLAB_LESSON=cost-of-a-collection GCLAB_STEP=4 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=2
shot lesson-concurrent-3 GCLAB_LESSON=concurrent-gc-design GCLAB_STEP=3 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-concurrent-5 GCLAB_LESSON=concurrent-gc-design GCLAB_STEP=5 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-concurrent-6 GCLAB_LESSON=concurrent-gc-design GCLAB_STEP=6 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-safepoint-2 GCLAB_LESSON=time-to-safepoint GCLAB_STEP=2 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-gc-log-2 GCLAB_LESSON=reading-a-gc-log GCLAB_STEP=2 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-gc-log-1 GCLAB_LESSON=reading-a-gc-log GCLAB_STEP=1 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
# The trade-off view (a heap-size sweep) in lesson (b), at 1280x720 and 150 %, and at 1920x1080 and 200 %.
shot lesson-trade-off-5 GCLAB_LESSON=heap-size-trade-off GCLAB_STEP=5 GCLAB_PRESENT=1 GCLAB_WINDOW=1280x720 GCLAB_ZOOM=1.5
shot lesson-trade-off-5-1080p GCLAB_LESSON=heap-size-trade-off GCLAB_STEP=5 GCLAB_PRESENT=1 GCLAB_WINDOW=1920x1080 GCLAB_ZOOM=2
shot tradeoff GCLAB_PRESET=kvm/kwml GCLAB_VIEW=tradeoff
shot lesson-governors-1 GCLAB_LESSON=governors-and-memory-bound-gc GCLAB_STEP=1 GCLAB_PRESENT=1 GCLAB_WINDOW=1920x1080 GCLAB_ZOOM=2
# The same views rendered headless by egui_kittest (wgpu on lavapipe; no Xvfb): screenshots/kittest/<view>.png.
# GCLAB_KITTEST=0 skips them.
if [ "${GCLAB_KITTEST:-1}" != 0 ]; then
  cargo test -q -p gclab --lib kittest_view_snapshots -- --ignored >/dev/null
  echo "wrote screenshots/kittest/*.png"
fi
