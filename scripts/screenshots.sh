#!/usr/bin/env bash
# Regenerates screenshots/ (shown in the README): opens the real app window under Xvfb and saves what it shows.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-system.sh test
cargo build --release -q -p gclab
mkdir -m 700 -p .xdg && export XDG_RUNTIME_DIR="$PWD/.xdg"
mkdir -p screenshots
GCLAB_SCREENSHOT="$PWD/screenshots/summary-window.png" \
  xvfb-run -a -s "-screen 0 1920x1280x24 -nolisten tcp" target/release/gclab
echo "wrote screenshots/summary-window.png"
