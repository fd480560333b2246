//! gclab's cross-crate tests, compiled into one binary. One module per topic.

/// The heap lock on android-krait: computing mutators stop at their next allocation while the collector holds it.
mod android_allocation;
/// Issue #16 mechanism 3: allocation failure below the soft limit (dlmalloc's footprint limit, fragments, the tail).
mod android_frag;
mod android_heap_lock;
/// The android-krait heap map: pieces placed first-fit, never moved, agreeing with the occupancy timeline.
mod android_layout;
/// What counts as a mutator pause on android-krait: dispatch vs wake-up ends, idle exits, a mutator's own explicit GC.
mod android_pages;
mod android_pauses;
/// Issue #16 mechanisms 1 and 5 on android-krait: Linux 3.4's scaled CFS tunables, sizing from bytesAllocated.
mod android_sched_sizing;
/// Issue #16's source audit on android-krait: boost, chunk accounting, sweep and trim locking, tick, min_vruntime.
mod android_source_audit;
/// The phone's other processes (surfaceflinger, system_server, kernel threads) sharing the app's cores.
mod android_system;
/// The real binary opens its window under Xvfb and renders the default scenario.
mod app_window;
/// Atomic output (issue 21): writers killed at random points leave the old file or the new one.
mod atomic_writes;
/// The CLI contract of DESIGN §5: verbs, JSON shapes, exit statuses, one-line errors for bad input.
mod cli;
/// Same scenario + seed → bit-identical runs, also under the sweep's parallelism; stored fingerprints.
mod determinism;
/// The fuzz targets' entry points (`fuzz/src/lib.rs`; the fuzz crate itself needs libFuzzer and nightly), replayed
/// by `fuzz_regressions`.
#[path = "../../fuzz/src/lib.rs"]
mod fuzz_entries;
/// Fuzz findings and hand-made hostile inputs through every parser: errors naming the input, never panics.
mod fuzz_regressions;
/// Real HotSpot and Android GC logs: pause extraction, ZGC's own MMU reproduced, bad input, `gclab mmu` on logs.
mod gc_logs;
/// Issue 21's hostile inputs: each gives exit 2 and one plain line naming file, place and expectation.
mod hostile_inputs;
/// kvm-soc mechanisms: gating, wake-ups, compaction, out-of-memory, time-driven allocation, layout replay.
mod kvm_mechanisms;
/// The built-in lessons: every claim holds on the model; false claims and malformed files are caught.
mod lessons;
/// Exact MMU against Go's own `internal/trace` values (go-mmu oracle), through the core and the CLI.
mod mmu_on_disk;
mod mmu_oracle;
/// The SYSTOR'15 paper (android-krait) reproduced: Table 1, Table 3, Corollary 1's time trend.
mod reproduce_android;
/// The adaptive-GC paper (JVM'02) reproduced: Table 2, Table 3, Fig. 4, §4.5–4.6.
mod reproduce_kvm;
/// Scenario loading: presets, overrides, ranges, error messages naming file, line and field.
mod scenario;
/// Issue 21 for export-perfetto and trace record: pauses from a temporary file, thinning, `--quiet`, progress.
mod streaming_exports;
/// Helpers the topic modules share (loading and running presets, the layout-replay check).
mod support;
/// The distributed sweep: plan / run / merge byte-identical to the local sweep, resume, missing points, Pareto.
mod sweep_plan;
/// The gclab trace format: version-1 fixtures, text ↔ binary, hostile files named by line or byte offset.
mod trace_format;
/// `gclab trace import` on real heaptrack, objects-CSV and Elephant Tracks 2 traces (jq replay, exact peak).
mod trace_import;
/// `gclab trace record` of simulated runs and `gclab export-perfetto` (trace-event JSON structure).
mod trace_record;
/// A recorded trace as the workload: replay fidelity, the embedded jq recording, errors.
mod trace_workload;
