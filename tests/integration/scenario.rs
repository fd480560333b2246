//! Scenario loading: every embedded preset and profile is listed and valid; overrides reach any field (arrays of
//! the workload profile included); a saved scenario loads back to the same scenario.

use gclab_core::Scenario;
use gclab_core::scenario::presets::{PRESETS, WORKLOADS};

fn toml_files_under(dir: &std::path::Path, prefix: &str, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).expect("assets dir").flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            toml_files_under(&p, &format!("{prefix}{name}/"), out);
        } else if let Some(stem) = name.strip_suffix(".toml") {
            out.push(format!("{prefix}{stem}"));
        }
    }
}

#[test]
fn every_asset_file_is_embedded_and_loads() {
    let root = gclab_tests::repo_root().join("assets");
    let mut scen = Vec::new();
    toml_files_under(&root.join("scenarios"), "", &mut scen);
    let mut work = Vec::new();
    toml_files_under(&root.join("workloads"), "", &mut work);
    for s in &scen {
        assert!(
            PRESETS.iter().any(|(n, _)| n == s),
            "assets/scenarios/{s}.toml is not listed in presets.rs"
        );
    }
    for w in &work {
        assert!(
            WORKLOADS.iter().any(|(n, _)| n == w),
            "assets/workloads/{w}.toml is not listed in presets.rs"
        );
    }
    for (name, _) in PRESETS {
        let sc = Scenario::preset(name).unwrap_or_else(|e| panic!("preset {name}: {e}"));
        assert_eq!(sc.file().name, *name, "preset {name} carries its own name");
    }
}

#[test]
fn overrides_reach_profile_arrays() {
    let sc = Scenario::load(
        "preset:kvm/kshape",
        &["workload.phases.2.allocations=1234".into()],
    )
    .expect("loads");
    assert_eq!(
        sc.workload().phases[2].allocations,
        1234,
        "array index path"
    );
    let err = Scenario::load(
        "preset:kvm/kshape",
        &["workload.phases.9.allocations=1".into()],
    )
    .expect_err("no phase 9");
    assert!(err.to_string().contains("out of range"), "{err}");
}

#[test]
fn a_saved_scenario_loads_back_equal() {
    let sc = Scenario::load(
        "preset:kvm/kwml",
        &[
            "collector.kind=adaptive".into(),
            "heap.bank_size=8KiB".into(),
        ],
    )
    .expect("loads");
    let text = sc.to_toml_string();
    let back = Scenario::from_toml_str(&text, "saved.toml", None, &[]).expect("saved text loads");
    assert_eq!(
        back.workload(),
        sc.workload(),
        "inlined workload round-trips"
    );
    assert_eq!(
        back.file().collector,
        sc.file().collector,
        "collector round-trips"
    );
    assert_eq!(back.file().heap, sc.file().heap, "heap round-trips");
    assert_eq!(
        back.file().kvm,
        sc.file().kvm,
        "platform parameters round-trip"
    );
    assert_eq!(
        back.to_toml_string(),
        text,
        "saving again gives the same text"
    );
}

#[test]
fn forced_bytes_defaults_to_the_bank_size() {
    let sc = Scenario::load("preset:kvm/kwml", &["heap.bank_size=4KiB".into()]).expect("loads");
    assert_eq!(
        sc.file().collector.forced_bytes.map(|b| b.0),
        Some(4096),
        "B = bank size (JVM'02 §2)"
    );
}
