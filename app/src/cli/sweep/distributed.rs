//! The distributed sweep, for schedulers that run index-addressed arrays (Slurm `--array`, a Kubernetes Indexed
//! Job) or for GNU parallel on one box:
//!
//! ```text
//! gclab sweep plan SCENARIO --vary K=V1,V2,... [--vary ...] [--set K=V]... -o PLAN.json
//! gclab sweep run PLAN.json (--index I | --shard I/N) --out DIR [--threads T] [--quiet]
//! gclab sweep merge PLAN.json DIR [--json PATH|-] [--csv PATH|-] [--pareto] [--quiet]
//! gclab sweep info PLAN.json
//! ```
//! `--shard I/N` runs the points `I, I+N, I+2N, …` (strided, so every task gets a mix of the slow and the fast
//! settings). The index comes from the command line only — the scripts pass `$SLURM_ARRAY_TASK_ID` or
//! `$(JOB_COMPLETION_INDEX)` — so a task runs the same points wherever it is started. Points whose file is
//! already in DIR are skipped (resume); a file of another plan is refused.

use std::collections::BTreeSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use gclab_core::io::AtomicFile;
use gclab_core::sweep::merge::{DirSource, MergeOutputs, Sink, merge};
use gclab_core::sweep::pareto::ParetoFront;
use gclab_core::sweep::point::{parse_point, point_path, render_point, sync_dir, write_atomic};
use gclab_core::sweep::{SweepError, SweepPlan};

use super::super::CliError;
use super::runner::{ProgressLine, first_failure, run_points};

/// A sweep error as a CLI error: bad input exits 2, missing points and I/O exit 1.
impl From<SweepError> for CliError {
    fn from(e: SweepError) -> Self {
        if e.is_bad_input() {
            CliError::input(e.to_string())
        } else {
            CliError::other(e.to_string())
        }
    }
}

/// `sweep plan`: writes the plan after checking that every point's scenario builds.
pub fn plan(
    scenario: &str,
    varies: &[String],
    sets: &[String],
    dest: &str,
) -> Result<(), CliError> {
    let (plan, base) = SweepPlan::new(scenario, sets, varies)?;
    plan.validate_points(&base)?;
    with_dest(dest, |out| {
        plan.write_to(out)
            .map_err(|e| CliError::other(format!("{dest}: cannot write: {e}")))
    })
}

/// `sweep info`: what a plan holds, as `key value` lines for scripts (`vary` lists each key with its number of
/// values: `collector.k(10) seed(2500)`).
pub fn info(plan_path: &str) -> Result<(), CliError> {
    let plan = SweepPlan::read(Path::new(plan_path)).map_err(CliError::from)?;
    let mut out = std::io::stdout().lock();
    let vary: Vec<String> = plan
        .vary
        .iter()
        .map(|v| format!("{}({})", v.key, v.values.len()))
        .collect();
    let text = format!(
        "points {}\nfingerprint {}\nscenario {}\nset {}\nvary {}\ngclab {}\n",
        plan.len(),
        plan.fingerprint(),
        plan.scenario.spec,
        plan.set.join(" "),
        vary.join(" "),
        plan.gclab_version
    );
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::other(format!("stdout: {e}")))
}

/// `sweep run`: runs the chosen points, one atomically written file each, skipping those already done.
pub fn run(
    plan_path: &str,
    index: Option<&str>,
    shard: Option<&str>,
    out: &str,
    threads: Option<&str>,
) -> Result<(), CliError> {
    let plan = SweepPlan::read(Path::new(plan_path)).map_err(CliError::from)?;
    let dir = PathBuf::from(out);
    let indices = chosen_indices(index, shard, plan.len())?;
    let threads = match threads {
        Some(t) => t.parse::<usize>().ok().filter(|t| *t >= 1).ok_or_else(|| {
            CliError::input(format!(
                "--threads {t}: expected a whole number of threads ≥ 1"
            ))
        })?,
        None => super::threads_default(),
    };
    // Resume: a point whose file is this plan's result is done; any other file there is an error, before work.
    let mut todo = Vec::with_capacity(indices.len());
    for &i in &indices {
        let p = point_path(&dir, i, plan.len());
        match std::fs::read_to_string(&p) {
            Ok(text) => {
                parse_point(&text, &plan, i, &p.display().to_string()).map_err(CliError::from)?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => todo.push(i),
            Err(e) => return Err(CliError::from(SweepError::io(&p, &e))),
        }
    }
    let base = plan.base_scenario().map_err(|e| {
        CliError::from(SweepError::Scenario {
            path: plan_path.to_string(),
            source: e,
        })
    })?;
    let already = (indices.len() - todo.len()) as u64;
    let progress = ProgressLine::new("sweep run", indices.len() as u64, already);
    let failures = run_points(
        &plan,
        &base,
        &todo,
        threads,
        plan_path,
        &progress,
        &|i, run| {
            let text = render_point(&plan, i, &run.summary);
            write_atomic(&point_path(&dir, i, plan.len()), text.as_bytes()).map_err(CliError::from)
        },
    );
    // The renames are on disk before the task reports success.
    let dirs: BTreeSet<PathBuf> = todo
        .iter()
        .filter_map(|i| {
            point_path(&dir, *i, plan.len())
                .parent()
                .map(Path::to_path_buf)
        })
        .collect();
    for d in dirs.iter().filter(|d| d.is_dir()) {
        sync_dir(d).map_err(CliError::from)?;
    }
    first_failure(failures).map_or(Ok(()), Err)
}

/// The indices `--index I` or `--shard I/N` choose, ascending.
fn chosen_indices(
    index: Option<&str>,
    shard: Option<&str>,
    len: u64,
) -> Result<Vec<u64>, CliError> {
    match (index, shard) {
        (Some(_), Some(_)) => Err(CliError::input(
            "sweep run: give --index I or --shard I/N, not both",
        )),
        (Some(i), None) => {
            let idx = i
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|i| *i < len)
                .ok_or_else(|| {
                    CliError::input(format!(
                        "--index {i}: expected a point index 0..={} (the plan has {len} points)",
                        len - 1
                    ))
                })?;
            Ok(vec![idx])
        }
        (None, Some(s)) => {
            let bad = || {
                CliError::input(format!(
                    "--shard {s}: expected I/N with 0 ≤ I < N, e.g. --shard 3/100"
                ))
            };
            let (i, n) = s.split_once('/').ok_or_else(bad)?;
            let i: u64 = i.trim().parse().map_err(|_| bad())?;
            let n: u64 = n.trim().parse().map_err(|_| bad())?;
            if n == 0 || i >= n {
                return Err(bad());
            }
            Ok((i..len)
                .step_by(usize::try_from(n).unwrap_or(usize::MAX))
                .collect())
        }
        (None, None) => Err(CliError::input(
            "sweep run: expected --index I or --shard I/N (a task passes $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)",
        )),
    }
}

/// `sweep merge`: every point present, streamed in index order into the JSON / CSV, and/or the frontier.
pub fn merge_verb(
    plan_path: &str,
    dir: &str,
    json: Option<&str>,
    csv: Option<&str>,
    pareto: bool,
) -> Result<(), CliError> {
    if json.is_none() && csv.is_none() && !pareto {
        return Err(CliError::input(
            "sweep merge: expected --json PATH|-, --csv PATH|- or --pareto",
        ));
    }
    let to_stdout = [json == Some("-"), csv == Some("-"), pareto];
    if to_stdout.iter().filter(|x| **x).count() > 1 {
        return Err(CliError::input(
            "sweep merge: only one of --json -, --csv - and --pareto may print to stdout",
        ));
    }
    let plan = SweepPlan::read(Path::new(plan_path)).map_err(CliError::from)?;
    if !Path::new(dir).is_dir() {
        return Err(CliError::input(format!(
            "{dir}: not a folder of sweep results"
        )));
    }
    let mut src = DirSource::new(Path::new(&dir), plan.len());
    let mut front = ParetoFront::new();
    let progress = ProgressLine::new("sweep merge", plan.len(), 0);
    let mut report = |d: u64| progress.set(d);
    // Each file output is written beside its destination and renamed into place once complete.
    let mut json_w = json.map(Dest::open).transpose()?;
    let mut csv_w = csv.map(Dest::open).transpose()?;
    let outs = MergeOutputs {
        json: json_w.as_mut().map(Dest::sink),
        csv: csv_w.as_mut().map(Dest::sink),
        pareto: pareto.then_some(&mut front),
    };
    let merged = merge(&plan, &mut src, dir, outs, &mut report);
    progress.finish();
    merged.map_err(CliError::from)?;
    for d in [json_w, csv_w].into_iter().flatten() {
        d.commit()?;
    }
    if pareto {
        print_front(&front)?;
    }
    Ok(())
}

fn print_front(front: &ParetoFront) -> Result<(), CliError> {
    let pts = front.points();
    let mut text = format!(
        "# Pareto frontier: {} of {} points, minimising energy_j.total [J], max_pause_ms [ms] and \
         execution_time_s [s]; {} out-of-memory runs left out\n",
        pts.len(),
        front.offered(),
        front.excluded()
    );
    text += "index\tenergy_j\tmax_pause_ms\texecution_time_s\tset\n";
    for p in &pts {
        text += &format!(
            "{}\t{}\t{}\t{}\t{}\n",
            p.index, p.energy_j, p.max_pause_ms, p.execution_time_s, p.set
        );
    }
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::other(format!("stdout: {e}")))
}

/// A merge output: stdout, or an [`AtomicFile`] (a temporary file renamed over the destination once complete; a
/// device such as `/dev/null` is written in place).
struct Dest {
    name: String,
    out: DestOut,
}

enum DestOut {
    Stdout(std::io::StdoutLock<'static>),
    File(BufWriter<AtomicFile>),
}

impl Dest {
    fn open(dest: &str) -> Result<Dest, CliError> {
        let out = if dest == "-" {
            DestOut::Stdout(std::io::stdout().lock())
        } else {
            let f = AtomicFile::create(Path::new(dest))
                .map_err(|e| CliError::other(format!("{dest}: cannot write: {e}")))?;
            DestOut::File(BufWriter::new(f))
        };
        Ok(Dest {
            name: dest.into(),
            out,
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.out {
            DestOut::Stdout(w) => w,
            DestOut::File(w) => w,
        }
    }

    fn sink(&mut self) -> Sink<'_> {
        Sink {
            name: self.name.clone(),
            out: self.writer(),
        }
    }

    fn commit(self) -> Result<(), CliError> {
        let name = self.name;
        let err = |e: std::io::Error| CliError::other(format!("{name}: cannot write: {e}"));
        match self.out {
            DestOut::Stdout(mut w) => w.flush().map_err(err),
            DestOut::File(w) => w
                .into_inner()
                .map_err(|e| err(e.into_error()))?
                .commit()
                .map_err(err),
        }
    }
}

/// Runs `f` on `dest` (`-` = stdout; a file is written beside it and renamed into place on success).
pub fn with_dest(
    dest: &str,
    f: impl FnOnce(&mut dyn Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut d = Dest::open(dest)?;
    f(d.writer())?;
    d.commit()
}
