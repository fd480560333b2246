//! "Re-simulate as a workload": the trace on screen becomes a kvm-soc scenario whose `[workload.trace]` is that
//! file (issue #5 item 4, the app half) — every knob then works on the recorded program. The trace is read and the
//! heap sized on a thread of its own (a trace may hold millions of objects); the result is loaded like any
//! scenario file.

use std::path::{Path, PathBuf};

use gclab_core::Scenario;
use gclab_core::peak_live_bytes;

use crate::background::BackgroundTask;

/// Smallest heap offered. `[bytes]`
const MIN_HEAP_BYTES: u64 = 128 * 1024;
/// Largest heap a scenario takes (`heap.size`'s range). `[bytes]`
const MAX_HEAP_BYTES: u64 = 4 << 30;
/// Banks per heap in the scenario offered.
const BANKS: u64 = 16;

/// The scenario replaying the trace at `path` under the adaptive collector, in the smallest power-of-two heap
/// with room for twice the recording's peak live bytes, in 16 banks.
///
/// A trace of another tool (heaptrack, Elephant Tracks 2, objects CSV) is imported first; the imported copy stays in
/// the temporary directory, so that the scenario (saved or re-run) can name it.
pub fn scenario_for(path: &Path) -> Result<Scenario, String> {
    let imported = super::trace::import_to_temp(path)?.map(|(tmp, _)| tmp);
    let abs = std::path::absolute(imported.as_deref().unwrap_or(path))
        .unwrap_or_else(|_| path.to_path_buf());
    let quoted = serde_json::to_string(&abs.display().to_string()).map_err(|e| e.to_string())?;
    let name = path
        .file_name()
        .map_or_else(|| "trace".into(), |n| n.to_string_lossy().into_owned());
    let text = format!(
        "format_version = 1\nname = {}\ndescription = \"A recorded trace re-simulated as the workload: drag the \
         collector, k, heap and bank size.\"\nplatform = \"kvm-soc\"\nseed = 1\n\n[workload.trace]\npath = \
         {quoted}\n\n[collector]\nkind = \"adaptive\"\n",
        serde_json::to_string(&format!("{name} as a workload")).map_err(|e| e.to_string())?
    );
    let origin = format!("{name} (as a workload)");
    let sc = Scenario::from_toml_str(&text, &origin, None, &[]).map_err(|e| e.to_string())?;
    let peak = sc.recorded().map_or(0, peak_live_bytes);
    let heap = peak
        .saturating_mul(2)
        .max(MIN_HEAP_BYTES)
        .checked_next_power_of_two()
        .unwrap_or(MAX_HEAP_BYTES)
        .min(MAX_HEAP_BYTES);
    sc.with_set(&format!("heap.size={heap}"))
        .and_then(|s| s.with_set(&format!("heap.bank_size={}", (heap / BANKS).max(1024))))
        .map_err(|e| e.to_string())
}

/// A re-simulation being prepared on the "trace-workload" task.
pub struct Resimulation {
    task: BackgroundTask<Result<Scenario, String>>,
}

impl Default for Resimulation {
    fn default() -> Self {
        Resimulation {
            task: BackgroundTask::new("trace-workload", 1),
        }
    }
}

impl Resimulation {
    /// Starts preparing the scenario for the trace at `path`; `wake` is repainted when it is ready.
    pub fn start(&mut self, path: PathBuf, wake: &egui::Context) -> Result<(), String> {
        self.task
            .start(Some(wake), move |sink| {
                let _ = sink.send(scenario_for(&path));
            })
            .map(|_| ())
    }

    /// True while a scenario is being prepared.
    pub fn busy(&self) -> bool {
        self.task.running()
    }

    /// The prepared scenario, once.
    pub fn poll(&mut self) -> Option<Result<Scenario, String>> {
        self.task.poll_latest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_trace_becomes_a_kvm_scenario_with_room_for_its_peak() {
        let p =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/trace/v1.gctrace.txt");
        let sc = scenario_for(&p).expect("the fixture loads as a workload");
        assert_eq!(
            sc.recorded().map(<[_]>::len),
            Some(4),
            "the fixture's four objects"
        );
        let f = sc.file();
        assert!(
            f.heap.size.0.is_power_of_two() && f.heap.size.0 >= MIN_HEAP_BYTES,
            "{}",
            f.heap.size
        );
        assert_eq!(f.heap.size.0 / f.heap.bank_size.0, BANKS, "16 banks");
        // heaptrack's interpreted file: imported, then replayed as the workload (5.36 MiB peak → a 16 MiB heap).
        let jq = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data/object-traces/heaptrack/jq/trace.interpreted.zst");
        let sc = scenario_for(&jq).expect("imported, then loaded as a workload");
        assert_eq!(sc.recorded().map(<[_]>::len), Some(68_973), "jq's objects");
        assert_eq!(
            sc.file().heap.size.0,
            16 << 20,
            "twice the peak, to a power of two"
        );
        let missing = scenario_for(Path::new("/nonexistent/x.gctrace"));
        assert!(
            missing
                .as_ref()
                .is_err_and(|e| e.contains("workload.trace.path")),
            "{missing:?}"
        );
    }
}
