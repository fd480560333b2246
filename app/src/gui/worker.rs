//! The live re-run worker (STYLE §16): one named thread ("sim-worker") fed over a bounded channel. The UI sends
//! `(generation, Scenario)` requests; the worker drains its queue, runs only the newest, and the run in flight is
//! cancelled through core's [`Cancel`] as soon as a newer generation exists. Results come back with their
//! generation so the UI drops stale ones. The UI never waits: a request that does not fit in the channel stays
//! `pending` and is retried next frame (replaced by any newer one).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use gclab_core::{Cancel, NoProgress, Scenario, SimError, WorkloadTapes, simulate_with};

use super::analysis::RunView;

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
    tx: Option<Sender<Request>>,
    rx: Receiver<Reply>,
    latest: Arc<AtomicU64>,
    pending: Option<Request>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts the worker; `repaint` is called after each reply (wakes the UI).
    pub fn spawn(repaint: impl Fn() + Send + 'static) -> Worker {
        let (tx, req_rx) = bounded::<Request>(1);
        let (reply_tx, rx) = bounded::<Reply>(4);
        let latest = Arc::new(AtomicU64::new(0));
        let l2 = Arc::clone(&latest);
        let handle = std::thread::Builder::new()
            .name("sim-worker".into())
            .spawn(move || worker_loop(&req_rx, &reply_tx, &l2, &repaint))
            .ok();
        Worker {
            tx: Some(tx),
            rx,
            latest,
            pending: None,
            handle,
        }
    }

    /// Queues `req` (newest wins) and cancels any older run in flight.
    pub fn submit(&mut self, req: Request) {
        self.latest.fetch_max(req.generation, Ordering::SeqCst);
        self.pending = Some(req);
        self.flush();
    }

    fn flush(&mut self) {
        let (Some(tx), Some(req)) = (&self.tx, self.pending.take()) else {
            return;
        };
        match tx.try_send(req) {
            Ok(()) => {}
            Err(TrySendError::Full(r)) => self.pending = Some(r),
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Retries a pending request and returns the replies that arrived (any generation; the caller filters).
    pub fn poll(&mut self) -> Vec<Reply> {
        self.flush();
        self.rx.try_iter().collect()
    }

    /// True when the worker thread could not be started or has died.
    pub fn is_dead(&self) -> bool {
        self.handle.as_ref().is_none_or(JoinHandle::is_finished)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Cancel the run in flight, close the channel, and wait for the thread.
        self.latest.store(u64::MAX, Ordering::SeqCst);
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn worker_loop(
    rx: &Receiver<Request>,
    tx: &Sender<Reply>,
    latest: &Arc<AtomicU64>,
    repaint: &dyn Fn(),
) {
    // Slider drags re-run one workload under other collector settings: it is drawn once for the session.
    let tapes = WorkloadTapes::new();
    while let Ok(mut req) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            req = newer;
        }
        let generation = req.generation;
        if generation < latest.load(Ordering::SeqCst) {
            continue;
        }
        let l = Arc::clone(latest);
        let cancel = Cancel::from_fn(move || l.load(Ordering::Relaxed) > generation);
        let t0 = Instant::now();
        let reply = match simulate_with(&req.scenario, Some(&tapes), &cancel, &mut NoProgress) {
            Ok(run) => {
                let sim_s = t0.elapsed().as_secs_f64();
                if cancel.is_cancelled() {
                    continue;
                }
                Reply::Done(Arc::new(RunView::build(
                    run,
                    req.scenario,
                    generation,
                    sim_s,
                )))
            }
            Err(SimError::Cancelled) => continue,
            Err(e) => Reply::Failed {
                generation,
                message: e.to_string(),
            },
        };
        if tx.send(reply).is_err() {
            return;
        }
        repaint();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_request_wins_and_stale_ones_are_dropped() {
        let mut w = Worker::spawn(|| {});
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
