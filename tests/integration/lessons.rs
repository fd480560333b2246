//! The built-in lessons (issue #19): every claim a lesson shows holds on today's model (`gclab lesson check`
//! exits 0), a false claim is caught and named (exit 1), and a malformed lesson file is bad input (exit 2, the
//! field named). The contract for checks: `gclab lesson list` prints one lesson id per line.

use gclab_tests::gclab;

#[test]
fn every_claim_of_every_builtin_lesson_holds_on_the_model() {
    let out = gclab(&["lesson", "check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gclab lesson check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
}

#[test]
fn lesson_list_prints_one_id_per_line() {
    let out = gclab(&["lesson", "list"]);
    assert!(out.status.success(), "lesson list: {out:?}");
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(ids.len() >= 6, "at least six lessons: {ids:?}");
    for id in &ids {
        assert!(
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "an id per line: {id:?}"
        );
    }
}

fn write_lesson(name: &str, text: &str) -> std::path::PathBuf {
    let p = gclab_tests::scratch_dir("lesson", name).join("lesson.toml");
    std::fs::write(&p, text).expect("write lesson");
    p
}

#[test]
fn a_claim_the_model_does_not_show_fails_the_check_by_name() {
    let p = write_lesson(
        "false",
        "id = \"false-claim\"\ntitle = \"t\"\n[[steps]]\ntitle = \"s\"\ntext = \"x\"\nscenario = \"preset:kvm/kwml\"\n\
         [[steps.claims]]\nsays = \"Adaptive collects less often than base\"\n\
         left = { metric = \"collections\", set = [\"collector.kind=adaptive\"] }\nop = \"<\"\n\
         right = { metric = \"collections\", set = [\"collector.kind=base\"] }\n",
    );
    let out = gclab(&["lesson", "check", p.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1), "a false claim exits 1: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Adaptive collects less often than base"),
        "the failing claim is named: {err}"
    );
}

#[test]
fn a_malformed_lesson_is_bad_input_naming_the_field() {
    let p = write_lesson(
        "bad",
        "id = \"bad\"\ntitle = \"t\"\n[[steps]]\ntitle = \"s\"\ntext = \"x\"\nscenario = \"preset:kvm/kwml\"\nview = \"pie-chart\"\n",
    );
    let out = gclab(&["lesson", "check", p.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2), "bad input exits 2: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("steps[0].view"), "names the field: {err}");
}

#[test]
fn gclab_open_takes_a_teachers_own_lesson_file_as_a_lesson_not_a_scenario() {
    // A copy of a built-in lesson under the teacher's own name: `gclab open` read it as a scenario and exited 2
    // with "unknown field `id`". Now it is told a lesson and checked as one before the window opens; without a
    // display only the window itself fails (exit 1), never the file.
    let src = gclab_tests::repo_root().join("assets/lessons/cost-of-a-collection.toml");
    let text = std::fs::read_to_string(&src).expect("built-in lesson file");
    let p = write_lesson("open-copy", &text);
    let out = gclab(&["open", p.to_str().expect("utf-8 path")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("unknown field") && out.status.code() != Some(2),
        "a good lesson file is not bad input: {:?} {err}",
        out.status.code()
    );
    // The same file with a lesson's mistake: bad input naming the lesson's field, not a scenario's.
    let bad = write_lesson(
        "open-bad",
        &text.replacen("[[steps]]", "[[steps]]\nbogus_field = 1", 1),
    );
    let out = gclab(&["open", bad.to_str().expect("utf-8 path")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "bad input exits 2: {err}");
    assert!(
        err.contains("bogus_field") && !err.contains("`id`") && err.trim().lines().count() == 1,
        "one line naming the lesson's wrong field, read as a lesson (not a scenario): {err}"
    );
}

#[test]
fn lesson_export_writes_every_steps_figure_and_an_offline_deck_that_links_them() {
    // End to end: the real app renders each step (under Xvfb where there is no display) and index.html links
    // each figure by a relative name, so the deck works from file:// with no network.
    let dir = gclab_tests::scratch_dir("lesson", "export");
    let d = gclab_tests::path_str(&dir);
    let id = "cost-of-a-collection";
    let out = gclab(&[
        "lesson", "export", id, "-o", d, "--size", "640x360", "--scale", "1",
    ]);
    assert!(
        out.status.success(),
        "lesson export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html written");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the deck fetches nothing"
    );
    let steps = String::from_utf8_lossy(&gclab(&["lesson", "show", id]).stdout)
        .lines()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
        })
        .count();
    assert!(steps >= 3, "the lesson has steps: {steps}");
    for n in 1..=steps {
        let png = format!("step-{n:02}.png");
        assert!(html.contains(&png), "index.html links {png}");
        let bytes = std::fs::read(dir.join(&png)).unwrap_or_else(|e| panic!("{png}: {e}"));
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
            "{png} is a drawn PNG ({} bytes)",
            bytes.len()
        );
        let csv = format!("step-{n:02}.csv");
        assert!(dir.join(&csv).exists(), "{csv} written beside it");
    }
}
