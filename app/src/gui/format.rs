//! Number, byte, duration and energy formatting for the app (STYLE §18): one place, so every view prints the same
//! quantity the same way.

pub use gclab_core::units::format_bytes as bytes;

/// A duration given in seconds, in the unit that reads best (`850 µs`, `12.3 ms`, `1.25 s`).
pub fn secs(s: f64) -> String {
    let a = s.abs();
    if a == 0.0 {
        "0 s".into()
    } else if a < 1e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if a < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// An energy in joules with an SI prefix (`18.2 mJ`, `652 µJ`).
pub fn joules(j: f64) -> String {
    let a = j.abs();
    if a == 0.0 {
        "0 J".into()
    } else if a >= 1.0 {
        format!("{j:.3} J")
    } else if a >= 1e-3 {
        format!("{:.3} mJ", j * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} µJ", j * 1e6)
    } else {
        format!("{:.3} nJ", j * 1e9)
    }
}

/// A relative change `new` vs `old` as a signed percentage (`+3.2 %`), or empty when `old` is 0.
pub fn delta(new: f64, old: f64) -> String {
    if old == 0.0 || !old.is_finite() || !new.is_finite() {
        return String::new();
    }
    let d = (new - old) / old.abs() * 100.0;
    if d.abs() >= 10.0 {
        format!("{d:+.0} %")
    } else {
        format!("{d:+.1} %")
    }
}

/// A window length given in milliseconds (`0.1 ms`, `50 ms`, `1.2 s`).
pub fn window_ms(ms: f64) -> String {
    secs(ms * 1e-3)
}

/// A window length in milliseconds for CSV and JSON: the shortest text of the value rounded to 12 significant
/// digits, so a window computed as 10^-1 prints `0.1`, not `0.09999999999999999`.
pub fn csv_ms(ms: f64) -> String {
    let rounded: f64 = format!("{ms:.11e}").parse().unwrap_or(ms);
    format!("{rounded}")
}

/// A fraction 0–1 as a percentage.
pub fn percent(f: f64) -> String {
    format!("{:.1} %", f * 100.0)
}

/// Why a run's MinMU curve reads the way it does when that is not evident from the plot (#19 item 7): a run whose
/// collections stopped no thread has MinMU 1 at every window; explicit `System.gc()` calls count as the calling
/// thread's pauses only under `android.pauses.explicit_gc = true` (SYSTOR'15 §2.1, `core/src/platform/android/config.rs`).
pub fn mmu_note(s: &gclab_core::Summary) -> Option<String> {
    let explicit = s
        .collections_by_trigger
        .get("explicit")
        .copied()
        .unwrap_or(0);
    pause_note(s.collections, explicit, s.max_pause_ms)
}

/// [`mmu_note`] on the numbers it reads: collections, explicit ones among them, the longest pause `[ms]`.
fn pause_note(collections: u64, explicit: u64, max_pause_ms: f64) -> Option<String> {
    let explicit_part = if explicit > 0 {
        format!(", {explicit} of them explicit System.gc() calls")
    } else {
        String::new()
    };
    if max_pause_ms <= 0.0 && collections > 0 {
        let why = if explicit > 0 {
            " Explicit collections count as the calling thread's pause only with android.pauses.explicit_gc = \
             true (SYSTOR'15 §2.1: the mutator performs a foreground cycle)."
        } else {
            ""
        };
        return Some(format!(
            "No collection paused the program ({collections} collections{explicit_part}): MinMU is 1 at every \
             window.{why}"
        ));
    }
    (explicit > 0 && max_pause_ms > 0.0).then(|| {
        format!(
            "{explicit} of the {collections} collections are explicit System.gc() calls: each is the calling \
             thread's own pause (android.pauses.explicit_gc, SYSTOR'15 §2.1), so this curve counts them with the \
             other pauses."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_pauses_explains_its_minmu_of_one() {
        let note = pause_note(42, 42, 0.0).expect("a note");
        assert!(
            note.contains("MinMU is 1") && note.contains("explicit_gc = true"),
            "{note}"
        );
        let note = pause_note(42, 42, 16.3).expect("a note on explicit pauses");
        assert!(note.contains("42 of the 42"), "{note}");
        assert_eq!(
            pause_note(42, 0, 16.3),
            None,
            "ordinary pauses need no note"
        );
        assert_eq!(
            pause_note(0, 0, 0.0),
            None,
            "no collections, nothing to explain"
        );
    }

    #[test]
    fn units_pick_a_readable_prefix() {
        assert_eq!(secs(0.000_85), "850 µs");
        assert_eq!(secs(0.0123), "12.30 ms");
        assert_eq!(joules(0.018_15), "18.150 mJ");
        assert_eq!(delta(110.0, 100.0), "+10 %");
        assert_eq!(delta(95.0, 100.0), "-5.0 %");
        assert_eq!(delta(1.0, 0.0), "");
        assert_eq!(
            csv_ms(0.099_999_999_999_999_99),
            "0.1",
            "no binary noise in CSV"
        );
        assert_eq!(csv_ms(50.0), "50");
    }
}
