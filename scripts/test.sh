#!/usr/bin/env bash
# The one command that passes all of gclab's tests on a fresh machine: system packages (Xvfb, Mesa) first, then
# every test of the workspace — unit, integration (CLI contract, paper reproduction, the real app window under
# Xvfb), doc tests — the runnable examples, and the distributed sweep on a real single-node Slurm (tests/slurm/run.sh:
# installs slurm + munge through setup-system.sh, fails when it cannot; ~30 s).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-system.sh test
mkdir -m 700 -p .xdg && export XDG_RUNTIME_DIR="$PWD/.xdg"   # silences libwayland's probe warning
# The structure drawn from the imports (issue #18): no import circles in core or app, no import running back up
# core's layers, no source file over 600 lines (tests aside), and the app, tests, benches and fuzz targets use core
# only through its public API (scripts/structure.py prints the full report).
python3 scripts/structure.py
# Unit, integration and doc tests (benches are compiled by clippy --all-targets in CI, and run by `cargo bench`).
cargo test --workspace
# Built with the workspace's features (`--workspace`), the example is the one `cargo test` just built; `cargo run -p
# gclab-core` would resolve core's features alone and compile core and a dozen crates again.
cargo build -q --workspace --example quick_run
"${CARGO_TARGET_DIR:-target}/debug/examples/quick_run"
# The sweep as a Slurm array job on a real single-node cluster (started and shut down by the script).
cargo build -q -p gclab
tests/slurm/run.sh
