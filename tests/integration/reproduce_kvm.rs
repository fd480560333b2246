//! The adaptive-GC paper (Chen et al., JVM'02) reproduced from mechanisms: Table 2's activation counts, Table 3's
//! trend, Fig. 4's heap energy and §4.5–4.6's bank and heap sizes. `docs/reproduction.md` shows the same numbers.

use std::sync::OnceLock;

use gclab_core::reproduce::kvm::{
    AppResult, adaptive_saving_pct, mean_slowdown_pct, paper_row, run_all,
};
use gclab_core::reproduce::kvm_report::summary_lines;
use gclab_core::reproduce::paper_kvm::{KS, TABLE2};
use gclab_tests::{gclab, repo_root};

fn default_results() -> &'static [AppResult] {
    static R: OnceLock<Vec<AppResult>> = OnceLock::new();
    R.get_or_init(|| run_all(&[]).expect("reproduction runs"))
}

#[test]
fn table2_k_allocation_activations_within_10_percent() {
    let mut misses = Vec::new();
    for r in default_results() {
        let row = paper_row(&r.app).expect("paper row");
        for (i, k) in KS.iter().enumerate() {
            let (ours, paper) = (r.runs[i].collections as f64, TABLE2[row][i] as f64);
            if (ours - paper).abs() > 0.10 * paper {
                misses.push((r.app.clone(), *k, ours, paper));
            }
        }
    }
    assert!(
        misses.is_empty(),
        "Table 2 cells off by more than 10 %: {misses:?}"
    );
}

#[test]
fn table2_base_activations_within_tolerance() {
    for r in default_results() {
        let row = paper_row(&r.app).expect("paper row");
        let (ours, paper) = (r.base().collections as f64, TABLE2[row][6] as f64);
        let tol = (0.2 * paper).max(1.0);
        assert!(
            (ours - paper).abs() <= tol,
            "{}: base {ours} vs paper {paper} (±{tol})",
            r.app
        );
    }
}

#[test]
fn fig4_adaptive_is_competitive_with_the_best_k() {
    for r in default_results() {
        let (k, best) = r.best_k();
        let ad = r.heap_energy_norm(7);
        assert!(
            ad <= best * 1.10,
            "{}: adaptive heap energy {ad:.3} vs best k={k} {best:.3}",
            r.app
        );
    }
    let saving = adaptive_saving_pct(default_results());
    assert!(
        (20.0..=37.0).contains(&saving),
        "average heap saving of adaptive over base {saving:.1} % (paper 28.4 %)"
    );
}

#[test]
fn table3_slowdown_falls_with_k_and_adaptive_is_cheap() {
    let r = default_results();
    let means: Vec<f64> = (0..6).map(|i| mean_slowdown_pct(r, i)).collect();
    assert!(
        means.windows(2).all(|w| w[0] > w[1]),
        "average increase must fall as k grows: {means:?}"
    );
    let ad = mean_slowdown_pct(r, 7);
    assert!(
        (1.0..=8.0).contains(&ad),
        "adaptive average increase {ad:.2} % (paper 4.20 %)"
    );
}

#[test]
#[allow(clippy::disallowed_methods)] // threads are what this test checks (clippy.toml)
fn other_bank_and_heap_sizes_keep_adaptive_near_the_best_k() {
    let configs: Vec<(String, Vec<String>)> = ["4KiB", "8KiB", "32KiB"]
        .iter()
        .map(|b| (format!("bank {b}"), vec![format!("heap.bank_size={b}")]))
        .chain(
            ["64KiB", "96KiB", "160KiB"]
                .iter()
                .map(|h| (format!("heap {h}"), vec![format!("heap.size={h}")])),
        )
        .collect();
    let results: Vec<(String, Vec<AppResult>)> = std::thread::scope(|s| {
        let hs: Vec<_> = configs
            .iter()
            .map(|(n, o)| s.spawn(move || (n.clone(), run_all(o).expect("runs"))))
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    for (name, rs) in &results {
        for r in rs {
            if r.any_oom() {
                assert!(
                    name.starts_with("heap"),
                    "{}: out of memory at {name}, which keeps the 128 KiB heap",
                    r.app
                );
                assert_eq!(
                    r.app, "kvm/kshape",
                    "only Kshape's map outgrows a small heap (at {name})"
                );
                continue;
            }
            let (k, best) = r.best_k();
            let ad = r.heap_energy_norm(7);
            assert!(
                ad <= best * 1.15,
                "{name}, {}: adaptive {ad:.3} vs best k={k} {best:.3}",
                r.app
            );
        }
    }
}

/// `docs/reproduction.md` is exactly what `gclab reproduce` writes from today's model, and the README quotes every
/// summary line of it verbatim — so neither can claim more than the model shows.
#[test]
fn the_committed_report_is_current_and_the_readme_quotes_its_summaries() {
    let out = gclab(&["reproduce", "--out", "-"]);
    assert!(out.status.success(), "gclab reproduce failed: {out:?}");
    let fresh = String::from_utf8(out.stdout).expect("utf-8 report");
    let committed = std::fs::read_to_string(repo_root().join("docs/reproduction.md"))
        .expect("docs/reproduction.md");
    assert!(
        fresh == committed,
        "docs/reproduction.md is stale: run `gclab reproduce --out docs/reproduction.md`"
    );
    let lines = summary_lines(&fresh);
    assert!(
        lines.len() >= 6,
        "the report has its summary lines: {lines:?}"
    );
    let models = std::fs::read_to_string(repo_root().join("docs/models-kvm.md"))
        .expect("docs/models-kvm.md");
    let start = fresh
        .find("### The adaptive trigger's readings")
        .expect("readings section");
    let end = fresh.find("### §4.5–4.6").expect("sizes section");
    let readings = fresh[start..end].trim_end().replace("### ", "#### ");
    assert!(
        models.contains(&readings),
        "docs/models-kvm.md's copy of the readings table differs from the report's"
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    for l in lines {
        assert!(
            readme.contains(l),
            "README.md does not quote the report's summary line {l:?}"
        );
    }
}
