//! Output of the CLI: JSON to a file or stdout (`-`), CSV timelines into a directory, and the human summary.

use std::io::Write;
use std::path::Path;

use gclab_core::Run;
use gclab_core::io::{write_dir_atomic, write_file_atomic};
use gclab_core::units::format_bytes;

use super::CliError;

/// Writes `value` as pretty JSON to `dest` (`-` = stdout).
pub fn write_json(dest: &str, value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| CliError::other(e.to_string()))?;
    if dest == "-" {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}").map_err(|e| CliError::other(format!("stdout: {e}")))
    } else {
        write_file_atomic(Path::new(dest), (text + "\n").as_bytes())
            .map_err(|e| CliError::other(format!("{dest}: cannot write: {e}")))
    }
}

/// Writes the run's timelines as CSV files into the folder `dir` ([`Run::csv_files`]), complete
/// or not at all ([`write_dir_atomic`]).
pub fn write_csv(dir: &str, run: &Run) -> Result<(), CliError> {
    let files = run.csv_files();
    write_dir_atomic(Path::new(dir), &files)
        .map_err(|e| CliError::other(format!("{dir}: cannot write: {e}")))
}

/// A short human-readable summary.
pub fn human_summary(name: &str, run: &Run) -> String {
    let s = &run.summary;
    let e = &s.energy_j;
    let mut out = format!("{name} — {} on {}\n", s.collector, s.platform);
    out += &format!("  time        {:.4} s", s.execution_time_s);
    if let Some(c) = s.execution_cycles {
        out += &format!(" ({c} cycles)");
    }
    out += &format!(
        "\n  allocated   {} objects, {}\n",
        s.allocations,
        format_bytes(s.allocated_bytes)
    );
    let by: Vec<String> = s
        .collections_by_trigger
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    out += &format!("  collections {} ({})\n", s.collections, by.join(", "));
    if e.memory == 0.0 && e.heap == 0.0 && e.rom == 0.0 && e.stack == 0.0 {
        // A platform without a memory-energy model (android-krait models the CPU cluster): say so, not "0.000e0".
        out += &format!(
            "  energy      total {:.4e} J: cpu {:.3e}; memories not modelled on {}\n",
            e.total, e.cpu, s.platform
        );
    } else {
        out += &format!(
            "  energy      total {:.4e} J: cpu {:.3e}, heap {:.3e} (leak {:.3e}, dyn {:.3e}), rom {:.3e}, stack {:.3e}\n",
            e.total, e.cpu, e.heap, e.heap_leakage, e.heap_dynamic, e.rom, e.stack
        );
    }
    out += &format!(
        "  GC cpu      {:.2} %, max pause {:.3} ms\n",
        s.gc_cpu_fraction * 100.0,
        s.max_pause_ms
    );
    if let Some(b) = s.mean_powered_banks {
        out += &format!(
            "  banks       {b:.2} powered on average, {} wake-ups\n",
            s.bank_wakeups.unwrap_or(0)
        );
    }
    if s.out_of_memory {
        out += "  OUT OF MEMORY: the run ended at an allocation the heap could not hold\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::{Cancel, NoProgress, Scenario, simulate};

    #[test]
    fn a_platform_without_a_memory_model_says_not_modelled() {
        let sc = Scenario::preset("android/quadrant")
            .and_then(|s| s.with_set("workload.android.iterations=1"))
            .or_else(|_| Scenario::preset("android/quadrant"))
            .expect("preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let text = human_summary("quadrant", &run);
        assert!(
            text.contains("memories not modelled on android-krait"),
            "{text}"
        );
        assert!(!text.contains("heap 0.000e0"), "{text}");
        let kvm = Scenario::preset("kvm/calculator").expect("preset");
        let run = simulate(&kvm, &Cancel::never(), &mut NoProgress).expect("runs");
        assert!(
            human_summary("calc", &run).contains(", heap "),
            "kvm-soc shows its heap energy"
        );
    }

    #[test]
    fn mmu_csv_windows_have_no_binary_noise() {
        let sc = Scenario::default_preset().expect("preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let dir = std::env::temp_dir().join(format!("gclab-mmu-csv-{}", std::process::id()));
        write_csv(dir.to_str().expect("utf-8 temp dir"), &run).expect("writes");
        let mmu = std::fs::read_to_string(dir.join("mmu.csv")).expect("mmu.csv");
        assert!(
            mmu.lines().nth(1).is_some_and(|l| l.starts_with("0.1,")),
            "{mmu}"
        );
        assert!(!mmu.contains("0.0999999"), "{mmu}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
