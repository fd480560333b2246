#!/usr/bin/env bash
# The one command that passes all of gclab's tests on a fresh machine: system packages (Xvfb, Mesa) first, then
# every test of the workspace — unit, integration (CLI contract, paper reproduction, the real app window under
# Xvfb), doc tests — and the runnable examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-system.sh test
mkdir -m 700 -p .xdg && export XDG_RUNTIME_DIR="$PWD/.xdg"   # silences libwayland's probe warning
# Unit, integration and doc tests (benches are compiled by clippy --all-targets in CI, and run by `cargo bench`).
cargo test --workspace
cargo run -q -p gclab-core --example quick_run
