//! The distributed sweep (issue 20): `gclab sweep plan` / `run` / `merge` give, for the same points, the bytes the
//! one-machine `gclab sweep --json` gives; resume skips done points and refuses another plan's; a merge with points
//! missing names them and writes nothing; bad input exits 2 naming the field; `--pareto` lists exactly the
//! non-dominated points.

use std::path::{Path, PathBuf};
use std::process::Output;

use gclab_tests::gclab;

fn tmp(name: &str) -> PathBuf {
    gclab_tests::scratch_dir("sweep", name)
}

fn p(p: &Path) -> &str {
    gclab_tests::path_str(p)
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what} failed ({:?}): {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).trim().to_string()
}

const KVM: [&str; 7] = [
    "preset:kvm/calculator",
    "--vary",
    "collector.kind=base,k-allocation,adaptive",
    "--vary",
    "heap.bank_size=8KiB,16KiB",
    "--vary",
    "seed=1,2,3",
];

/// Writes the plan of `sweep` into `dir` and returns its path.
fn write_plan(dir: &Path, sweep: &[&str]) -> PathBuf {
    let plan = dir.join("plan.json");
    let mut args = vec!["sweep", "plan"];
    args.extend_from_slice(sweep);
    args.extend(["-o", p(&plan)]);
    ok(&gclab(&args), "sweep plan");
    plan
}

fn local(sweep: &[&str]) -> Vec<u8> {
    let mut args = vec!["sweep"];
    args.extend_from_slice(sweep);
    args.extend(["--json", "-"]);
    let o = gclab(&args);
    ok(&o, "local sweep");
    o.stdout
}

fn merge_stdout(plan: &Path, out: &Path, flag: &str) -> Output {
    gclab(&["sweep", "merge", p(plan), p(out), flag, "-"])
}

#[test]
fn shards_merged_are_byte_identical_to_the_local_sweep() {
    let d = tmp("shards");
    let plan = write_plan(&d, &KVM);
    let out = d.join("out");
    for s in 0..4 {
        let shard = format!("{s}/4");
        let o = gclab(&[
            "sweep",
            "run",
            p(&plan),
            "--shard",
            &shard,
            "--out",
            p(&out),
        ]);
        ok(&o, "sweep run --shard");
    }
    let merged = merge_stdout(&plan, &out, "--json");
    ok(&merged, "sweep merge");
    assert_eq!(
        String::from_utf8_lossy(&merged.stdout),
        String::from_utf8_lossy(&local(&KVM)),
        "merge of 4 shards = one-machine sweep, byte for byte"
    );
    // To a file too (the same bytes, renamed into place: no temporary left beside it).
    let file = d.join("merged.json");
    ok(
        &gclab(&["sweep", "merge", p(&plan), p(&out), "--json", p(&file)]),
        "merge to file",
    );
    assert_eq!(
        std::fs::read(&file).expect("merged"),
        merged.stdout,
        "file = stdout"
    );
    let names: Vec<String> = std::fs::read_dir(&d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".tmp")),
        "temporaries: {names:?}"
    );
}

#[test]
fn android_and_file_scenarios_merge_identically_one_index_at_a_time() {
    let d = tmp("android");
    let sweep = [
        "preset:android/quadrant",
        "--set",
        "collector.kind=gencms",
        "--vary",
        "heap.target_util=0.5,0.75",
    ];
    let plan = write_plan(&d, &sweep);
    let out = d.join("out");
    for i in ["1", "0"] {
        ok(
            &gclab(&[
                "sweep",
                "run",
                p(&plan),
                "--index",
                i,
                "--out",
                p(&out),
                "--quiet",
            ]),
            "run --index",
        );
    }
    let merged = merge_stdout(&plan, &out, "--json");
    ok(&merged, "merge");
    assert_eq!(merged.stdout, local(&sweep), "android: byte-identical");

    // A scenario file given by a relative path: the plan carries its text and an absolute folder.
    let sc = d.join("scenario.toml");
    let text = gclab_core::scenario::presets::preset_text("kvm/kwml").expect("preset");
    std::fs::write(&sc, text).expect("write scenario");
    // Relative to the working directory of the test binary, as a user would type it.
    let rel = sc
        .strip_prefix(std::env::current_dir().expect("cwd"))
        .map_or_else(|_| sc.clone(), Path::to_path_buf);
    let file_sweep = [p(&rel), "--vary", "collector.kind=base,adaptive"];
    let plan2 = d.join("plan2.json");
    let mut args = vec!["sweep", "plan"];
    args.extend_from_slice(&file_sweep);
    args.extend(["-o", p(&plan2)]);
    ok(&gclab(&args), "plan of a file scenario");
    let out2 = d.join("out2");
    ok(
        &gclab(&[
            "sweep",
            "run",
            p(&plan2),
            "--shard",
            "0/1",
            "--out",
            p(&out2),
        ]),
        "run all",
    );
    let merged = merge_stdout(&plan2, &out2, "--json");
    ok(&merged, "merge file scenario");
    assert_eq!(
        merged.stdout,
        local(&file_sweep),
        "file scenario: byte-identical"
    );
}

#[test]
fn resume_skips_done_points_and_refuses_another_plans_files() {
    let d = tmp("resume");
    let plan = write_plan(&d, &KVM);
    let out = d.join("out");
    ok(
        &gclab(&["sweep", "run", p(&plan), "--index", "4", "--out", p(&out)]),
        "run one point",
    );
    // Doctor the finished point: a resumed run must keep it (skip), so the merge shows the doctored number.
    let f = out.join("000").join("000004.json");
    let text = std::fs::read_to_string(&f).expect("point file");
    let doctored = text.replacen("\"allocations\": ", "\"allocations\": 1", 1);
    assert_ne!(doctored, text, "the point file has an allocations field");
    std::fs::write(&f, &doctored).expect("doctor");
    ok(
        &gclab(&["sweep", "run", p(&plan), "--shard", "0/1", "--out", p(&out)]),
        "resume all",
    );
    assert_eq!(
        std::fs::read_to_string(&f).expect("kept"),
        doctored,
        "done point skipped"
    );
    let merged = merge_stdout(&plan, &out, "--json");
    ok(&merged, "merge");
    let v: serde_json::Value = serde_json::from_slice(&merged.stdout).expect("json");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 18, "3 × 2 × 3 points");
    let want: serde_json::Value = serde_json::from_slice(&local(&KVM)).expect("json");
    let a = runs[4]["summary"]["allocations"].as_u64().expect("n");
    let b = want["runs"][4]["summary"]["allocations"]
        .as_u64()
        .expect("n");
    assert_eq!(
        a.to_string(),
        format!("1{b}"),
        "the merge copies the point file as is"
    );

    // Another plan's results in the same folder: refused before any work, naming the file.
    let d2 = tmp("resume-other");
    let other = write_plan(
        &d2,
        &["preset:kvm/calculator", "--vary", "seed=1,2,3,4,5,6,7"],
    );
    let o = gclab(&["sweep", "run", p(&other), "--index", "4", "--out", p(&out)]);
    assert_eq!(o.status.code(), Some(2), "foreign file: {}", err(&o));
    assert!(
        err(&o).contains("000004.json") && err(&o).contains("field `plan`"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_merge_with_points_missing_names_them_and_writes_nothing() {
    let d = tmp("missing");
    let plan = write_plan(&d, &KVM);
    let out = d.join("out");
    ok(
        &gclab(&["sweep", "run", p(&plan), "--shard", "1/3", "--out", p(&out)]),
        "one shard",
    );
    let dest = d.join("merged.json");
    let o = gclab(&["sweep", "merge", p(&plan), p(&out), "--json", p(&dest)]);
    assert_eq!(o.status.code(), Some(1), "missing points: exit 1");
    assert!(
        err(&o).contains("12 of 18 points missing: indices 0, 2-3, 5-6, 8-9, 11-12, 14-15, 17"),
        "{}",
        err(&o)
    );
    assert_eq!(err(&o).lines().count(), 1, "one line");
    assert!(!dest.exists(), "no output written");
}

#[test]
fn bad_sweep_input_exits_2_naming_the_problem() {
    let d = tmp("bad");
    let plan = write_plan(&d, &KVM);
    let out = d.join("out");
    let edited = d.join("edited.json");
    let (nope, none) = (d.join("nope"), d.join("none.json"));
    let text = std::fs::read_to_string(&plan).expect("plan");
    std::fs::write(&edited, text.replacen("\"seed\":3", "\"seed\":4", 1)).expect("edit");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["sweep", "run", p(&plan), "--shard", "4/4", "--out", p(&out)],
            "--shard 4/4",
        ),
        (
            vec!["sweep", "run", p(&plan), "--index", "18", "--out", p(&out)],
            "0..=17",
        ),
        (
            vec!["sweep", "run", p(&plan), "--out", p(&out)],
            "--index <I>|--shard <I/N>",
        ),
        (
            vec!["sweep", "run", p(&plan), "--index", "1"],
            "--out <DIR>",
        ),
        (
            vec!["sweep", "run", p(&edited), "--index", "1", "--out", p(&out)],
            "field `points`",
        ),
        (vec!["sweep", "merge", p(&plan), p(&out)], "--pareto"),
        (
            vec!["sweep", "merge", p(&plan), p(&nope), "--pareto"],
            "not a folder",
        ),
        (
            vec![
                "sweep",
                "plan",
                "preset:kvm/calculator",
                "--vary",
                "seed=1,2",
            ],
            "--out <PLAN.json>",
        ),
        (
            vec![
                "sweep",
                "plan",
                "preset:kvm/calculator",
                "--vary",
                "heap.bank_size=16KiB,5KiB",
                "-o",
                "-",
            ],
            "heap.bank_size",
        ),
        (vec!["sweep", "info", p(&none)], "cannot read plan"),
    ];
    for (args, word) in cases {
        let o = gclab(&args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "`gclab {}`: {}",
            args.join(" "),
            err(&o)
        );
        assert_eq!(err(&o).lines().count(), 1, "one line: {}", err(&o));
        assert!(err(&o).contains(word), "`{word}` in: {}", err(&o));
    }
}

#[test]
fn pareto_lists_exactly_the_non_dominated_points_and_csv_has_every_row() {
    let d = tmp("pareto");
    let plan = write_plan(&d, &KVM);
    let out = d.join("out");
    ok(
        &gclab(&[
            "sweep",
            "run",
            p(&plan),
            "--shard",
            "0/1",
            "--out",
            p(&out),
            "--threads",
            "2",
        ]),
        "run",
    );
    let o = gclab(&["sweep", "merge", p(&plan), p(&out), "--pareto"]);
    ok(&o, "pareto");
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let listed: Vec<u64> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("index"))
        .map(|l| {
            l.split('\t')
                .next()
                .expect("index")
                .parse()
                .expect("number")
        })
        .collect();
    // Brute force over the local sweep's summaries.
    let v: serde_json::Value = serde_json::from_slice(&local(&KVM)).expect("json");
    let objs: Vec<[f64; 3]> = v["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            let s = &r["summary"];
            [
                s["energy_j"]["total"].as_f64().expect("e"),
                s["max_pause_ms"].as_f64().expect("p"),
                s["execution_time_s"].as_f64().expect("t"),
            ]
        })
        .collect();
    let dominated = |a: &[f64; 3]| {
        objs.iter()
            .any(|b| b.iter().zip(a).all(|(x, y)| x <= y) && b.iter().zip(a).any(|(x, y)| x < y))
    };
    let mut want: Vec<u64> = (0..objs.len() as u64)
        .filter(|i| !dominated(&objs[*i as usize]))
        .collect();
    let mut got = listed.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert!(!want.is_empty(), "a frontier exists");
    assert_eq!(got, want, "frontier = brute force:\n{text}");
    assert!(text.starts_with("# Pareto frontier: "), "{text}");

    let csv = merge_stdout(&plan, &out, "--csv");
    ok(&csv, "csv");
    let csv = String::from_utf8_lossy(&csv.stdout).to_string();
    assert_eq!(csv.lines().count(), 19, "header + 18 rows");
    assert!(
        csv.starts_with("index,collector.kind,heap.bank_size,seed,"),
        "{}",
        csv.lines().next().unwrap_or("")
    );
}

#[test]
fn the_xargs_recipe_of_docs_sweeps_md_runs_a_plan_on_one_box() {
    // The recipe as documented (docs/sweeps.md, "One box"), with the built binary as `gclab`.
    let d = tmp("xargs");
    let plan = write_plan(&d, &KVM);
    let bin = gclab_tests::gclab_bin();
    let script = r#"set -e
T=4
seq 0 $((T - 1)) | xargs -P 2 -I{} "$GCLAB" sweep run plan.json --shard {}/$T --out out --threads 1 --quiet
"$GCLAB" sweep merge plan.json out --json sweep.json
"#;
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("GCLAB", &bin)
        .current_dir(&d)
        .output()
        .expect("sh");
    ok(&o, "xargs recipe");
    assert!(plan.is_file(), "plan");
    assert_eq!(
        std::fs::read(d.join("sweep.json")).expect("merged"),
        local(&KVM),
        "recipe = local sweep"
    );
}

#[test]
fn outputs_to_a_device_are_written_in_place_not_replaced() {
    // Regression: an output is written beside its destination and renamed over it — never over /dev/null.
    let d = tmp("devnull");
    let plan = write_plan(&d, &["preset:kvm/calculator", "--vary", "seed=1,2"]);
    let out = d.join("out");
    ok(
        &gclab(&["sweep", "run", p(&plan), "--shard", "0/1", "--out", p(&out)]),
        "run",
    );
    for args in [
        vec!["sweep", "merge", p(&plan), p(&out), "--json", "/dev/null"],
        vec!["sweep", "merge", p(&plan), p(&out), "--csv", "/dev/null"],
        vec![
            "sweep",
            "preset:kvm/calculator",
            "--vary",
            "seed=1,2",
            "--json",
            "/dev/null",
        ],
    ] {
        ok(&gclab(&args), &args.join(" "));
    }
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::metadata("/dev/null").expect("/dev/null");
    assert!(
        m.file_type().is_char_device(),
        "/dev/null is still a device"
    );
}
