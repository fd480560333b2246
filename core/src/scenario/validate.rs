//! The range checks of a scenario: every field checked once, naming the field and what was expected
//! (`Err((field, expectation))`); the caller turns the field into its origin (file line or `--set`).

use super::{FORMAT_VERSION, PlatformKind, ScenarioFile};
use crate::workload::WorkloadProfile;

/// Most layout pieces an android-krait run may place (allocated bytes / `cohort_bytes` × `pieces_per_cohort`): the
/// documented maximum volume (100,000 MiB) at the default granularity (32 KiB × 8), 25.6 M. A run holds about
/// 100 bytes per piece: at this cap it peaks at 2.5 GB (`/usr/bin/time -v gclab run preset:android/lusearch --set
/// workload.android.allocated_mib=100000`, release: 2,514,120 kB) — the stated memory budget of the android
/// maxima (#21 item 4). The cap was 64 M, which let a finer grain over that volume take 5 GB.
pub const MAX_ANDROID_PIECES: u64 = 25_600_000;

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(
    field: &str,
    v: T,
    lo: T,
    hi: T,
    unit: &str,
) -> Result<(), (String, String)> {
    if v < lo || v > hi {
        return Err((
            field.to_string(),
            format!("expected {lo}–{hi} {unit}, got {v}")
                .trim_end()
                .to_string(),
        ));
    }
    Ok(())
}

fn in_range_f(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), (String, String)> {
    if !(v.is_finite() && v >= lo && v <= hi) {
        return Err((
            field.to_string(),
            format!("expected a number in [{lo}, {hi}], got {v}"),
        ));
    }
    Ok(())
}

/// Checks every range once; resolves `collector.forced_bytes`. `Err((field, expectation))`.
pub(super) fn validate(f: &mut ScenarioFile, w: &WorkloadProfile) -> Result<(), (String, String)> {
    if f.format_version == 0 || f.format_version > FORMAT_VERSION {
        return Err((
            "format_version".into(),
            format!(
                "expected 1–{FORMAT_VERSION} (this build reads up to version {FORMAT_VERSION}), got {}",
                f.format_version
            ),
        ));
    }
    let h = &f.heap;
    in_range("heap.size", h.size.0, 4 * 1024, 4 << 30, "bytes")?;
    in_range(
        "heap.bank_size",
        h.bank_size.0,
        1024,
        h.size.0,
        "bytes (1 KiB to the heap size)",
    )?;
    if !h.size.0.is_multiple_of(h.bank_size.0) {
        return Err((
            "heap.bank_size".into(),
            format!(
                "expected a divisor of heap.size ({}), got {}",
                h.size, h.bank_size
            ),
        ));
    }
    if !(1..=64).contains(&h.alignment) || !h.alignment.is_power_of_two() {
        return Err((
            "heap.alignment".into(),
            format!("expected a power of two in 1–64, got {}", h.alignment),
        ));
    }
    let c = &mut f.collector;
    if f.platform == PlatformKind::KvmSoc && !c.kind.is_kvm() {
        return Err((
            "collector.kind".into(),
            format!(
                "`{}` runs on android-krait; kvm-soc takes base, k-allocation or adaptive",
                c.kind.name()
            ),
        ));
    }
    in_range("collector.k", c.k, 1, 1_000_000_000, "allocations")?;
    in_range(
        "collector.lookahead_allocations",
        c.lookahead_allocations,
        0,
        1_000_000_000,
        "allocations",
    )?;
    let forced = c.forced_bytes.unwrap_or(f.heap.bank_size);
    in_range(
        "collector.forced_bytes",
        forced.0,
        1,
        f.heap.size.0,
        "bytes",
    )?;
    c.forced_bytes = Some(forced);
    let k = &f.kvm;
    in_range("kvm.clock_hz", k.clock_hz, 1_000_000, 1_000_000_000, "Hz")?;
    if !1_000_000_000u64.is_multiple_of(k.clock_hz) {
        return Err((
            "kvm.clock_hz".into(),
            format!(
                "expected a divisor of 1 GHz (e.g. 100000000), got {}",
                k.clock_hz
            ),
        ));
    }
    let e = &k.energy;
    in_range_f("kvm.energy.sram_access_j", e.sram_access_j, 0.0, 1e-6)?;
    in_range_f("kvm.energy.rom_access_j", e.rom_access_j, 0.0, 1e-6)?;
    in_range_f(
        "kvm.energy.leakage_per_cycle_over_access",
        e.leakage_per_cycle_over_access,
        0.0,
        100.0,
    )?;
    in_range_f(
        "kvm.energy.gated_leakage_fraction",
        e.gated_leakage_fraction,
        0.0,
        1.0,
    )?;
    in_range(
        "kvm.energy.resync_cycles",
        e.resync_cycles,
        0,
        1_000_000,
        "cycles",
    )?;
    in_range_f(
        "kvm.energy.mutator_heap_accesses_per_cycle",
        e.mutator_heap_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.alloc_accesses_per_byte",
        e.alloc_accesses_per_byte,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.stack_accesses_per_cycle",
        e.stack_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range_f(
        "kvm.energy.rom_accesses_per_cycle",
        e.rom_accesses_per_cycle,
        0.0,
        10.0,
    )?;
    in_range(
        "kvm.energy.stack_sram_size",
        e.stack_sram_size.0,
        0,
        1 << 30,
        "bytes",
    )?;
    in_range("kvm.energy.rom_size", e.rom_size.0, 0, 1 << 30, "bytes")?;
    in_range_f(
        "kvm.energy.cpu_energy_per_cycle_j",
        e.cpu_energy_per_cycle_j,
        0.0,
        1e-6,
    )?;
    in_range_f(
        "kvm.energy.cpu_stall_energy_fraction",
        e.cpu_stall_energy_fraction,
        0.0,
        1.0,
    )?;
    let g = &k.gc;
    for (name, v) in [
        ("kvm.gc.mark_cycles_per_byte", g.mark_cycles_per_byte),
        ("kvm.gc.compact_cycles_per_byte", g.compact_cycles_per_byte),
        (
            "kvm.gc.mark_accesses_per_object",
            g.mark_accesses_per_object,
        ),
        ("kvm.gc.mark_accesses_per_byte", g.mark_accesses_per_byte),
        (
            "kvm.gc.sweep_accesses_per_chunk",
            g.sweep_accesses_per_chunk,
        ),
        (
            "kvm.gc.compact_accesses_per_byte",
            g.compact_accesses_per_byte,
        ),
    ] {
        in_range_f(name, v, 0.0, 1e6)?;
    }
    for (name, v) in [
        ("kvm.gc.root_scan_cycles", g.root_scan_cycles),
        ("kvm.gc.mark_cycles_per_object", g.mark_cycles_per_object),
        ("kvm.gc.sweep_cycles_per_chunk", g.sweep_cycles_per_chunk),
        (
            "kvm.gc.compact_cycles_per_object",
            g.compact_cycles_per_object,
        ),
    ] {
        in_range(name, v, 0, 1_000_000_000, "cycles")?;
    }
    if w.permanent_bytes.0 >= f.heap.size.0 {
        return Err((
            "workload.permanent_bytes".into(),
            format!(
                "expected less than heap.size ({}), got {}",
                f.heap.size, w.permanent_bytes
            ),
        ));
    }
    in_range_f("heap.target_util", f.heap.target_util, 0.1, 0.9)?;
    match f.platform {
        PlatformKind::AndroidKrait => {
            if f.collector.kind.is_kvm() {
                return Err((
                    "collector.kind".into(),
                    format!(
                        "`{}` runs on kvm-soc; android-krait takes cms, gencms, cmsfly, bg or fg",
                        f.collector.kind.name()
                    ),
                ));
            }
            if w.android.is_none() {
                return Err((
                    "workload".into(),
                    "expected a profile with an [android] section (e.g. profile = \"android/lusearch\")"
                        .into(),
                ));
            }
            f.android.validate()?;
            if let Some(a) = &w.android {
                // The layout places every piece of every cohort: bound their number, so that a fine granularity
                // over a huge allocation volume is an error here, not an allocation failure in the engine.
                let e = &f.android.engine;
                let pieces = a.allocated_mib * 1_048_576.0 / e.cohort_bytes.0.max(1) as f64
                    * f64::from(e.pieces_per_cohort);
                if pieces > MAX_ANDROID_PIECES as f64 {
                    return Err((
                        "android.engine.cohort_bytes".into(),
                        format!(
                            "{} MiB allocated in cohorts of {} bytes × {} pieces makes {pieces:.0} pieces: expected \
                             at most {MAX_ANDROID_PIECES} (raise cohort_bytes or lower workload.android.allocated_mib)",
                            a.allocated_mib, e.cohort_bytes.0, e.pieces_per_cohort
                        ),
                    ));
                }
            }
        }
        PlatformKind::KvmSoc => {
            if w.phases.is_empty() && w.trace.is_none() {
                return Err((
                    "workload.phases".into(),
                    "expected a profile with [[phases]] (e.g. profile = \"kvm/kwml\") or a [workload.trace] for kvm-soc"
                        .into(),
                ));
            }
        }
    }
    Ok(())
}
