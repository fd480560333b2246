//! The live re-run worker (STYLE §16): each request runs on a "sim-worker" job of a [`BackgroundTask`]; a newer
//! request supersedes the run in flight, which core's [`gclab_core::Cancel`] stops within 1024 allocations, and
//! whatever it would still send is dropped as stale. Replies carry the request's generation so the UI also drops
//! any reply older than its newest request. The UI never waits. One [`WorkloadTapes`] store serves every run of
//! the session: slider drags re-run one workload under other collector settings, so it is drawn once.

use std::sync::Arc;
use std::time::Instant;

use gclab_core::{NoProgress, Scenario, SimError, WorkloadTapes, simulate_with};

use super::analysis::RunView;
use crate::background::BackgroundTask;

/// A run to compute.
#[derive(Debug, Clone)]
pub struct Request {
    /// Increases with every request; newer wins.
    pub generation: u64,
    /// What to simulate.
    pub scenario: Scenario,
}

/// What the worker sends back.
#[derive(Debug)]
pub enum Reply {
    /// A finished run with its derived view data.
    Done(Arc<RunView>),
    /// The simulation failed (not cancelled: cancelled runs send nothing).
    Failed {
        /// Generation of the request.
        generation: u64,
        /// One-line message for the status bar.
        message: String,
    },
}

impl Reply {
    /// Generation of the request this answers.
    pub fn generation(&self) -> u64 {
        match self {
            Reply::Done(v) => v.generation,
            Reply::Failed { generation, .. } => *generation,
        }
    }
}

/// The handle the UI keeps.
pub struct Worker {
    task: BackgroundTask<Reply>,
    tapes: Arc<WorkloadTapes>,
    wake: Option<egui::Context>,
    dead: bool,
}

impl Worker {
    /// The worker; each reply wakes `wake` (the UI), when given.
    pub fn spawn(wake: Option<&egui::Context>) -> Worker {
        Worker {
            task: BackgroundTask::new("sim-worker", 1),
            tapes: Arc::new(WorkloadTapes::new()),
            wake: wake.cloned(),
            dead: false,
        }
    }

    /// Starts `req`, cancelling any older run in flight.
    pub fn submit(&mut self, req: Request) {
        let tapes = Arc::clone(&self.tapes);
        let started = self.task.start(self.wake.as_ref(), move |sink| {
            let Request {
                generation,
                scenario,
            } = req;
            let t0 = Instant::now();
            let reply = match simulate_with(&scenario, Some(&tapes), sink.cancel(), &mut NoProgress)
            {
                Ok(run) => {
                    let sim_s = t0.elapsed().as_secs_f64();
                    if sink.is_cancelled() {
                        return;
                    }
                    Reply::Done(Arc::new(RunView::build(run, scenario, generation, sim_s)))
                }
                Err(SimError::Cancelled) => return,
                Err(e) => Reply::Failed {
                    generation,
                    message: e.to_string(),
                },
            };
            let _ = sink.send(reply);
        });
        self.dead |= started.is_err();
    }

    /// The replies that arrived (the caller also filters by its newest generation).
    pub fn poll(&mut self) -> Vec<Reply> {
        let r = self.task.poll();
        self.dead |= self.task.take_panic();
        r
    }

    /// Waits until a reply can be polled, at most `timeout` (headless drivers: the UI wakes on a reply's
    /// repaint request instead).
    pub fn wait(&self, timeout: std::time::Duration) {
        self.task.wait(timeout);
    }

    /// True when a run could not be started or ended in a panic (reported once).
    pub fn is_dead(&mut self) -> bool {
        std::mem::take(&mut self.dead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_request_wins_and_stale_ones_are_dropped() {
        let mut w = Worker::spawn(None);
        let sc = Scenario::default_preset().expect("default preset");
        for g in 1..=5 {
            let s = sc.with_set(&format!("seed={g}")).expect("seed override");
            w.submit(Request {
                generation: g,
                scenario: s,
            });
        }
        let t0 = Instant::now();
        let mut got = Vec::new();
        while t0.elapsed().as_secs() < 60 {
            got.extend(w.poll());
            if got.iter().any(|r| r.generation() == 5) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let last = got.last().expect("a reply");
        assert_eq!(last.generation(), 5, "the newest request is answered last");
        assert!(
            matches!(last, Reply::Done(v) if v.scenario.seed() == 5),
            "with its own scenario"
        );
    }
}
