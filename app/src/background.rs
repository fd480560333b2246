//! The one way gclab runs work off the calling thread (STYLE §16; rerun's `background_tasks.rs`):
//! [`BackgroundTask<T>`] runs a job on a named thread and hands what it produces back over a bounded
//! `crossbeam_channel`, tagged with the job's generation. Starting a job supersedes the one before it: the older
//! job's [`Cancel`] (core's, the one the simulation and the readers poll) fires, and anything it still sends is
//! dropped as stale — the caller only ever sees the newest job's results. Each result wakes the UI
//! (`egui::Context::request_repaint`) when a context was given. Nothing here blocks the caller: a poll takes what
//! has arrived; dropping the task cancels its job without waiting for it ([`BackgroundTask::stop`] waits).
//!
//! `clippy.toml` forbids `std::thread::spawn`, `Builder::spawn` and unbounded channels everywhere else, so this is
//! the one place that starts a thread (the parallel runner's scoped threads aside, [`crate::parallel`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded};
use gclab_core::Cancel;

/// What a job holds: where to send results, and whether it should stop.
pub struct Sink<T> {
    tx: Sender<(u64, T)>,
    generation: u64,
    latest: Arc<AtomicU64>,
    flag: Arc<AtomicBool>,
    cancel: Cancel,
    wake: Option<egui::Context>,
}

impl<T> Sink<T> {
    /// Sends one result (waiting while the channel is full) and wakes the UI. False when the job is stale or
    /// cancelled, or the task is gone: the job should stop.
    pub fn send(&self, value: T) -> bool {
        if self.is_cancelled() || self.tx.send((self.generation, value)).is_err() {
            return false;
        }
        if let Some(ctx) = &self.wake {
            ctx.request_repaint();
        }
        true
    }

    /// Core's cancellation check for this job: set once a newer job started or the task was cancelled or dropped.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// True once this job should stop.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed) || self.latest.load(Ordering::Relaxed) != self.generation
    }
}

/// A job as the task's thread runs it.
type Job = Box<dyn FnOnce() + Send>;

/// What the task and its thread share: the next job to run (a newer one replaces it), and whether the task
/// still exists.
#[derive(Default)]
struct Slot {
    next: std::sync::Mutex<Option<Job>>,
    closed: AtomicBool,
    panicked: AtomicBool,
}

impl Slot {
    fn put(&self, job: Option<Job>) {
        // A poisoned lock only means a job panicked while taking it; the slot itself is still sound.
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *next = job;
    }

    fn take(&self) -> Option<Job> {
        self.next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

/// The current job of one kind, and what it has produced. See the module header.
pub struct BackgroundTask<T> {
    name: &'static str,
    capacity: usize,
    latest: Arc<AtomicU64>,
    flag: Arc<AtomicBool>,
    rx: Option<Receiver<(u64, T)>>,
    /// The task's thread, started with the first job and kept warm for the next.
    thread: Option<JoinHandle<()>>,
    slot: Arc<Slot>,
}

impl<T: Send + 'static> BackgroundTask<T> {
    /// A task whose jobs run on a thread named `name`, with room for `capacity` results in flight (at least 1).
    pub fn new(name: &'static str, capacity: usize) -> Self {
        BackgroundTask {
            name,
            capacity: capacity.max(1),
            latest: Arc::new(AtomicU64::new(0)),
            flag: Arc::new(AtomicBool::new(false)),
            rx: None,
            thread: None,
            slot: Arc::default(),
        }
    }

    /// Starts `job`, superseding (cancelling) the job before it; each result it sends wakes `wake`. Jobs run one
    /// after another on the task's one thread, started with the first job and kept for the next, so a job starts
    /// on a warm thread as soon as the one before it has seen its cancel (a job superseded before it started
    /// never runs). Returns the job's generation, or the reason the thread could not start.
    pub fn start(
        &mut self,
        wake: Option<&egui::Context>,
        job: impl FnOnce(&Sink<T>) + Send + 'static,
    ) -> Result<u64, String> {
        self.flag.store(true, Ordering::Relaxed);
        let generation = self.latest.fetch_add(1, Ordering::SeqCst) + 1;
        let (tx, rx) = bounded(self.capacity);
        let flag = Arc::new(AtomicBool::new(false));
        let (latest, f2) = (Arc::clone(&self.latest), Arc::clone(&flag));
        let cancel = Cancel::from_fn(move || {
            f2.load(Ordering::Relaxed) || latest.load(Ordering::Relaxed) != generation
        });
        let sink = Sink {
            tx,
            generation,
            latest: Arc::clone(&self.latest),
            flag: Arc::clone(&flag),
            cancel,
            wake: wake.cloned(),
        };
        self.flag = flag;
        self.rx = None;
        if self.thread.as_ref().is_none_or(JoinHandle::is_finished) {
            self.thread = Some(self.spawn_thread()?);
        }
        self.slot.put(Some(Box::new(move || job(&sink))));
        self.rx = Some(rx);
        if let Some(h) = &self.thread {
            h.thread().unpark();
        }
        Ok(generation)
    }

    fn spawn_thread(&self) -> Result<JoinHandle<()>, String> {
        let slot = Arc::clone(&self.slot);
        #[allow(clippy::disallowed_methods)] // the one place a thread starts (module header)
        let spawned = std::thread::Builder::new()
            .name(self.name.into())
            .spawn(move || {
                while !slot.closed.load(Ordering::SeqCst) {
                    let Some(job) = slot.take() else {
                        std::thread::park();
                        continue;
                    };
                    // A job that panics is reported (`take_panic`); the thread goes on with the next.
                    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
                        slot.panicked.store(true, Ordering::SeqCst);
                    }
                }
            });
        spawned.map_err(|e| format!("the {} thread did not start: {e}", self.name))
    }

    /// The results of the current job that have arrived (stale ones dropped). Once the job has ended and its
    /// results are all taken, the task is idle again.
    pub fn poll(&mut self) -> Vec<T> {
        let Some(rx) = &self.rx else {
            return Vec::new();
        };
        let current = self.latest.load(Ordering::SeqCst);
        let mut out = Vec::new();
        loop {
            match rx.try_recv() {
                Ok((g, v)) if g == current => out.push(v),
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // The job ended (its sink is gone) and everything it sent is taken.
                    self.rx = None;
                    break;
                }
            }
        }
        out
    }

    /// Waits until a result of the current job can be taken (or the job ended), at most `timeout`; takes
    /// nothing. For headless drivers, which wake on a result as the UI does on its repaint request.
    pub fn wait(&self, timeout: std::time::Duration) {
        if let Some(rx) = &self.rx {
            let mut sel = crossbeam_channel::Select::new();
            sel.recv(rx);
            let _ = sel.ready_timeout(timeout);
        }
    }

    /// The newest result of the current job, if one arrived (earlier ones dropped).
    pub fn poll_latest(&mut self) -> Option<T> {
        self.poll().pop()
    }

    /// True while a job runs or waits to, or has results not yet taken.
    pub fn running(&self) -> bool {
        self.rx.is_some()
    }

    /// True (once) when a job ended by panicking.
    pub fn take_panic(&mut self) -> bool {
        self.slot.panicked.swap(false, Ordering::SeqCst)
    }

    /// Cancels the current job and forgets its results, without waiting for it.
    pub fn cancel(&mut self) {
        self.flag.store(true, Ordering::Relaxed);
        self.slot.put(None);
        self.rx = None;
    }

    /// Cancels the current job and waits for it to end (it wakes a parked job first).
    pub fn stop(&mut self) {
        self.flag.store(true, Ordering::Relaxed);
        // A job not yet started is dropped with its sink, which closes its channel.
        self.slot.put(None);
        if let Some(rx) = self.rx.take() {
            if let Some(h) = &self.thread {
                h.thread().unpark();
            }
            // Whatever the job still sends is dropped; the channel closes when the job returns.
            while rx.recv().is_ok() {}
        }
    }
}

impl<T> std::fmt::Debug for BackgroundTask<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundTask")
            .field("name", &self.name)
            .field("generation", &self.latest.load(Ordering::Relaxed))
            .field("running", &self.rx.is_some())
            .finish_non_exhaustive()
    }
}

impl<T> Drop for BackgroundTask<T> {
    fn drop(&mut self) {
        // The job sees its cancel and the thread ends after it; nothing waits here.
        self.flag.store(true, Ordering::Relaxed);
        self.slot.closed.store(true, Ordering::SeqCst);
        if let Some(h) = &self.thread {
            h.thread().unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn poll_until<T: Send + 'static>(t: &mut BackgroundTask<T>) -> Vec<T> {
        let t0 = Instant::now();
        let mut got = Vec::new();
        while t.running() && t0.elapsed() < Duration::from_secs(10) {
            got.extend(t.poll());
            std::thread::sleep(Duration::from_millis(1));
        }
        got
    }

    #[test]
    fn a_newer_job_cancels_the_older_and_its_results_are_dropped() {
        let mut t = BackgroundTask::<u32>::new("test-task", 1);
        t.start(None, |s| {
            // Runs until superseded, then tries to send anyway: dropped as stale.
            while !s.cancel().is_cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let _ = s.send(1);
        })
        .expect("started");
        t.start(None, |s| {
            for v in [2, 3] {
                assert!(s.send(v), "the current job's sends go through");
            }
        })
        .expect("started");
        assert_eq!(
            poll_until(&mut t),
            vec![2, 3],
            "only the newest job's results"
        );
        assert!(!t.running() && !t.take_panic());
    }

    #[test]
    fn cancel_and_stop_end_the_job_and_a_panic_is_reported() {
        let mut t = BackgroundTask::<u32>::new("test-task", 1);
        let seen = Arc::new(AtomicBool::new(false));
        let s2 = Arc::clone(&seen);
        t.start(None, move |s| {
            s.send(1);
            while !s.is_cancelled() {
                std::thread::park_timeout(Duration::from_secs(5));
            }
            s2.store(true, Ordering::Relaxed);
        })
        .expect("started");
        while t.poll().is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
        t.stop();
        assert!(
            seen.load(Ordering::Relaxed),
            "stop waits for the job to see its cancel"
        );
        t.start(None, |_| panic!("job failed")).expect("started");
        assert!(poll_until(&mut t).is_empty());
        let t0 = Instant::now();
        while !t.take_panic() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "the panic is reported"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!t.take_panic(), "once");
        // The thread goes on with the next job.
        t.start(None, |s| {
            s.send(7);
        })
        .expect("started");
        assert_eq!(poll_until(&mut t), vec![7]);
    }
}
