//! Exact MMU against Go's own implementation, an oracle: `../shared/data/go-mmu/*/` holds Go 1.19
//! `internal/trace` results (MutatorUtilization + NewMMUCurve().MMU / .Examples) for two real Go programs.
//!
//! * every recording: the MMU of `pauses.csv` over `[util_start_ns, util_end_ns]` (`meta.txt`, stw) equals
//!   `mmu_stw.csv`, `util_stw.csv`, `util_system.csv` and the gzipped `util_system_sweep.csv.gz` give `mmu_stw.csv`,
//!   `mmu_system.csv` and `mmu_system_sweep.csv` (and
//!   `util_perproc.csv` gives `mmu_perproc.csv` when present), within 1e-9 on all 33–34 windows (1 ns … whole run);
//! * worst windows: Go keeps a window unless it overlaps a kept window at least as bad (checking only the first
//!   overlap it meets, in heap order), refining bands from the lowest bound up; `worst_go` replays that and must
//!   reproduce `worst_*.csv` row for row; `worst` (what the CLI prints: every overlap checked, never past the end)
//!   must agree on rank 1 everywhere;
//! * one recording also goes through `gclab mmu … --json -`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gclab_core::importers::{Format, import_file};
use gclab_core::metrics::mmu::{MmuCurve, UtilSeries};
use gclab_tests::{gclab, shared_data};

fn recordings() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(shared_data().join("go-mmu"))
        .expect("go-mmu directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("meta.txt").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 2,
        "expected the go-mmu recordings in {}",
        shared_data().display()
    );
    dirs
}

/// `[util_start_ns, util_end_ns]` of `mode` from `meta.txt`.
fn span(dir: &Path, mode: &str) -> (u64, u64) {
    let meta = std::fs::read_to_string(dir.join("meta.txt")).expect("meta.txt");
    let line = meta
        .lines()
        .find(|l| l.starts_with(&format!("[{mode}]")) && l.contains("util_start_ns"))
        .expect("mode line");
    let field = |name: &str| -> u64 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
            .expect("span field")
    };
    (field("util_start_ns"), field("util_end_ns"))
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .expect("oracle CSV")
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// `window_ns,mmu`.
fn oracle_mmu(path: &Path) -> Vec<(u64, f64)> {
    csv_rows(path)
        .iter()
        .map(|r| (r[0].parse().expect("window"), r[1].parse().expect("mmu")))
        .collect()
}

/// `window_ns,rank,start_ns,mu` grouped by window, in rank order.
fn oracle_worst(path: &Path) -> BTreeMap<u64, Vec<(u64, f64)>> {
    let mut out: BTreeMap<u64, Vec<(u64, u64, f64)>> = BTreeMap::new();
    for r in csv_rows(path) {
        let w = r[0].parse().expect("window");
        out.entry(w).or_default().push((
            r[1].parse().expect("rank"),
            r[2].parse().expect("start"),
            r[3].parse().expect("mu"),
        ));
    }
    out.into_iter()
        .map(|(w, mut v)| {
            v.sort_by_key(|x| x.0);
            (w, v.into_iter().map(|(_, s, mu)| (s, mu)).collect())
        })
        .collect()
}

/// The step functions of `file` over `span`, through the importers.
fn series(file: &Path, format: Format, span: (u64, u64)) -> Vec<UtilSeries> {
    let (_, data) = import_file(file, format).expect("import");
    data.util_series(span)
}

/// Largest |ours − Go's| over the oracle's windows.
fn max_diff(series: &[UtilSeries], oracle: &[(u64, f64)]) -> f64 {
    let curve = MmuCurve::new(series);
    oracle
        .iter()
        .map(|&(w, want)| (curve.mmu(w).utilization - want).abs())
        .fold(0.0, f64::max)
}

/// (file, format, mode) triples to check in one recording.
fn cases(dir: &Path) -> Vec<(PathBuf, Format, &'static str)> {
    let mut v = vec![
        (dir.join("pauses.csv"), Format::PausesCsv, "stw"),
        (dir.join("util_stw.csv"), Format::UtilCsv, "stw"),
        (dir.join("util_system.csv"), Format::UtilCsv, "system"),
    ];
    if dir.join("util_perproc.csv").is_file() {
        v.push((dir.join("util_perproc.csv"), Format::UtilCsv, "perproc"));
    }
    // Gzipped, and its format told from the decompressed header.
    if dir.join("util_system_sweep.csv.gz").is_file() {
        v.push((
            dir.join("util_system_sweep.csv.gz"),
            Format::Auto,
            "system_sweep",
        ));
    }
    v
}

#[test]
fn mmu_equals_go_on_every_window() {
    for dir in recordings() {
        for (file, format, mode) in cases(&dir) {
            let oracle = oracle_mmu(&dir.join(format!("mmu_{mode}.csv")));
            assert!(oracle.len() >= 30, "the oracle has its ~34 windows");
            let d = max_diff(&series(&file, format, span(&dir, mode)), &oracle);
            eprintln!(
                "{} {:?} vs mmu_{mode}.csv: max |Δ| = {d:e}",
                dir.display(),
                file.file_name().unwrap_or_default()
            );
            assert!(
                d <= 1e-9,
                "{}: max |Δ| = {d} against mmu_{mode}.csv",
                file.display()
            );
        }
    }
}

#[test]
fn worst_windows_are_gos() {
    for dir in recordings() {
        for (file, format, mode) in cases(&dir) {
            let oracle = oracle_worst(&dir.join(format!("worst_{mode}.csv")));
            let s = series(&file, format, span(&dir, mode));
            let curve = MmuCurve::new(&s);
            let (mut rows, mut same_sets) = (0, 0);
            for (&w, want) in &oracle {
                let go = curve.worst_go(w, 5);
                let got: Vec<(u64, f64)> = go.iter().map(|x| (x.start_ns, x.utilization)).collect();
                assert_eq!(got.len(), want.len(), "{} w={w}: count", file.display());
                for (g, o) in got.iter().zip(want) {
                    assert!(
                        g.0 == o.0 && (g.1 - o.1).abs() <= 1e-9,
                        "{} w={w}: {got:?} vs Go {want:?}",
                        file.display()
                    );
                }
                rows += want.len();
                let ours = curve.worst(w, 5);
                assert_eq!(
                    ours[0].start_ns,
                    want[0].0,
                    "{} w={w}: rank 1 start",
                    file.display()
                );
                assert!(
                    (ours[0].utilization - want[0].1).abs() <= 1e-9,
                    "{} w={w}: rank 1 mu",
                    file.display()
                );
                same_sets +=
                    usize::from(ours.iter().map(|x| x.start_ns).eq(want.iter().map(|x| x.0)));
            }
            eprintln!(
                "{} {:?}: worst_go = worst_{mode}.csv on all {rows} rows; worst (disjoint) = Go on {same_sets}/{} windows",
                dir.display(),
                file.file_name().unwrap_or_default(),
                oracle.len()
            );
        }
    }
}

#[test]
fn the_cli_reproduces_go() {
    let dir = &recordings()[0];
    let (a, b) = span(dir, "stw");
    let oracle = oracle_mmu(&dir.join("mmu_stw.csv"));
    let windows: Vec<String> = oracle.iter().map(|(w, _)| format!("{w}ns")).collect();
    let pauses = dir.join("pauses.csv");
    let o = gclab(&[
        "mmu",
        pauses.to_str().expect("path"),
        "--span-ns",
        &format!("{a},{b}"),
        "--windows",
        &windows.join(","),
        "--json",
        "-",
    ]);
    assert!(
        o.status.success(),
        "gclab mmu failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let mmu = v["mmu"].as_array().expect("mmu array");
    assert_eq!(mmu.len(), oracle.len(), "one point per window, in order");
    for (p, (w, want)) in mmu.iter().zip(&oracle) {
        let got_w = p["window_ms"].as_f64().expect("window_ms");
        assert!((got_w - *w as f64 / 1e6).abs() < 1e-12, "window order");
        let got = p["utilization"].as_f64().expect("utilization");
        assert!((got - want).abs() <= 1e-9, "w={w}: {got} vs Go {want}");
    }
    let pauses_csv = std::fs::read_to_string(&pauses).expect("pauses.csv");
    assert_eq!(
        v["pauses"].as_u64(),
        Some(pauses_csv.lines().count() as u64 - 1),
        "pause count"
    );
    assert_eq!(v["format"], "pauses-csv", "auto-detected format");
    let worst = v["worst"].as_array().expect("worst");
    assert_eq!(
        worst.len(),
        5 * oracle.len() - worst_short(dir),
        "5 per window (fewer when few fit)"
    );
    for k in ["window_ms", "rank", "start_ns", "utilization"] {
        assert!(worst[0].get(k).is_some(), "worst rows have `{k}`");
    }
    assert!(
        v["max_pause_ms"].as_f64().is_some_and(|m| m > 0.0),
        "max_pause_ms"
    );
    assert_eq!(
        v["warnings"].as_array().map(Vec::len),
        Some(0),
        "no warnings for a clean CSV"
    );
}

/// How many fewer than 5 disjoint worst windows fit, summed over the oracle's windows (the longest windows).
fn worst_short(dir: &Path) -> usize {
    let s = series(&dir.join("pauses.csv"), Format::PausesCsv, span(dir, "stw"));
    let curve = MmuCurve::new(&s);
    oracle_mmu(&dir.join("mmu_stw.csv"))
        .iter()
        .map(|&(w, _)| 5 - curve.worst(w, 5).len())
        .sum()
}
