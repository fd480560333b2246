#!/usr/bin/env bash
# The one command that runs gclab on its embedded default scenario: installs the window's system libraries if
# missing, builds in release mode and opens the app. Arguments are passed on (`scripts/run.sh open my.toml`,
# `scripts/run.sh run preset:kvm/kwml`). On a machine without a display it opens the window inside Xvfb and saves
# what it shows to gclab-window.png instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ $# -eq 0 ]; then
  scripts/setup-system.sh test
  cargo build --release -q -p gclab
  echo "gclab: no display here; opening the window in Xvfb and saving it to gclab-window.png" >&2
  [ -n "${XDG_RUNTIME_DIR:-}" ] || { mkdir -m 700 -p .xdg && export XDG_RUNTIME_DIR="$PWD/.xdg"; }
  # Cargo's target directory honours CARGO_TARGET_DIR (relative to this checkout when relative).
  GCLAB_SCREENSHOT="$PWD/gclab-window.png" xvfb-run -a -s "-screen 0 1920x1280x24 -nolisten tcp" \
    "${CARGO_TARGET_DIR:-target}/release/gclab"
  exit 0
fi
scripts/setup-system.sh run
exec cargo run --release -q -p gclab -- "$@"
