//! A run's timelines as CSV text, one file each ([`Run::csv_files`]) — the one writer behind `gclab run --csv DIR` and the app's
//! *Export CSV*, so both give the same files and columns. Writing them (complete or not at all) is the caller's,
//! through [`crate::io::write_dir_atomic`].

use std::fmt::Write as _;

use super::{Run, variant_name};

/// A value's serde name, or empty.
fn name_of<T: serde::Serialize>(v: &T) -> String {
    variant_name(v).unwrap_or_default()
}

impl Run {
    /// `(file name, CSV text)` of each of the run's timelines: `occupancy.csv`, `gc_events.csv`, `banks.csv`,
    /// `pauses.csv`, `mmu.csv` and `threads.csv` (android-krait's threads and their scheduler statistics, SYSTOR'15
    /// Table 3; only the header on kvm-soc).
    pub fn csv_files(&self) -> Vec<(&'static str, String)> {
        let run = self;
        let mut files = Vec::new();
        let mut s = String::from("time_ns,live_bytes,dead_bytes,free_bytes\n");
        for o in &run.occupancy {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                o.time.0, o.live_bytes, o.dead_bytes, o.free_bytes
            );
        }
        files.push(("occupancy.csv", s));
        let mut s = String::from(
            "start_ns,end_ns,trigger,alloc_index,heap_bytes_before,live_bytes_after,freed_bytes,moved_bytes,live_objects,work_cycles,stall_cycles,powered_banks_after\n",
        );
        for g in &run.gc_events {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{},{}",
                g.start.0,
                g.end.0,
                name_of(&g.trigger),
                g.alloc_index,
                g.heap_bytes_before,
                g.live_bytes_after,
                g.freed_bytes,
                g.moved_bytes,
                g.live_objects,
                g.work_cycles,
                g.stall_cycles,
                g.powered_banks_after
            );
        }
        files.push(("gc_events.csv", s));
        let mut s = String::from("bank,state,start_ns,end_ns\n");
        for b in &run.banks {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                b.bank,
                name_of(&b.state),
                b.start.0,
                b.end.0
            );
        }
        files.push(("banks.csv", s));
        let mut s = String::from("mutator,start_ns,end_ns,kind\n");
        for p in &run.pauses {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                p.mutator,
                p.start.0,
                p.end.0,
                name_of(&p.kind)
            );
        }
        files.push(("pauses.csv", s));
        let mut s = String::from("window_ms,utilization\n");
        for m in &run.summary.mmu {
            // The summary's windows are whole nanoseconds divided by 10^6: 0.1, not 0.09999999999999999.
            let _ = writeln!(s, "{},{}", m.window_ms, m.utilization);
        }
        files.push(("mmu.csv", s));
        // Quoted by the csv crate when a name needs it (names are the engine's own: `mutator-0`, `GC`, `binder-3`).
        let mut w = ::csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["thread", "name", "cpu_ns", "migrations", "delayed_ns"]);
        for (k, t) in run.threads.iter().enumerate() {
            let _ = w.write_record([
                k.to_string(),
                t.name.clone(),
                t.cpu_ns.to_string(),
                t.migrations.to_string(),
                t.delayed_ns.to_string(),
            ]);
        }
        let s = w
            .into_inner()
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_default();
        files.push(("threads.csv", s));
        files
    }
}
