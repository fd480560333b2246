//! The one way gclab spreads independent work over the machine's cores: [`map_on_cores`] hands out items by index
//! to one named worker thread per core (work stealing by an atomic counter) and returns the results in input order;
//! [`for_each_index`] is the loop under it, used directly by the sweep runner, which streams each finished point
//! instead of keeping it; [`in_rounds`] is the ordered pipeline over it (apply the last segment, read the next,
//! process this one's pieces), used by the importers' parses and `export-perfetto`'s formatting. Used by `gclab
//! reproduce`, `gclab sweep`, `gclab lesson check`, `gclab mmu`'s windows, the app's sweeps and heap raster, the GC
//! logs' line parse (HotSpot and logcat, `importers::lines::parse_stream_split`) and the pause CSV's row parse
//! (`importers::csv_split`); each item's result must depend on its input alone, so that the answer is the same on
//! any number of cores.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Applies `f` to every item on as many threads as there are cores and returns the results in input order. A slot
/// is `None` only if the worker running it panicked or could not start.
pub fn map_on_cores<T: Sync, R: Send>(
    items: &[T],
    name: &str,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    for_each_index(items.len(), cores, name, |i| {
        let r = f(&items[i]);
        if let Ok(mut slot) = slots[i].lock() {
            *slot = Some(r);
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// One job of a round of [`in_rounds`].
enum Job {
    /// Apply the segment processed in the round before.
    Apply,
    /// Read the segment of the round after.
    Read,
    /// Process piece k of this round's segment.
    Piece(usize),
}

/// What a [`Job`] gives.
enum Done<S, P, E> {
    Applied(Result<(), E>),
    Read(Result<Option<S>, E>),
    Processed(P),
}

/// Reads segments with `read` (`None` at the end; called in order, one call at a time), processes piece k of
/// each with `piece` (`pieces` of them, on every core), and hands each segment with its pieces' results, in order,
/// to `apply`. Each round runs three kinds of job at once on the cores: apply the segment of the round before,
/// read the segment of the round after, and this round's pieces — so the result is the sequential one's as long
/// as a piece's result depends on the piece alone. The first error of `apply` (the earlier segment) wins over a
/// read error of the same round; a read error is returned as it comes; `stopped` is the error when a worker
/// stopped (a panic, which none should).
pub fn in_rounds<S: Send + Sync, P: Send + Sync, E: Send>(
    name: &str,
    read: impl Fn() -> Result<Option<S>, E> + Sync,
    pieces: impl Fn(&S) -> usize,
    piece: impl Fn(&S, usize) -> P + Sync,
    apply: impl FnMut(&S, &[P]) -> Result<(), E> + Send,
    stopped: impl Fn() -> E,
) -> Result<(), E> {
    let apply = Mutex::new(apply);
    let mut current = read()?;
    // The segment processed in the round before; its apply job frees it too, on a worker (a segment's pieces can
    // be millions of values to drop).
    let mut prev: Mutex<Option<(S, Vec<P>)>> = Mutex::new(None);
    loop {
        let pending = prev.get_mut().map_or(true, |p| p.is_some());
        if current.is_none() && !pending {
            break;
        }
        let n = current.as_ref().map_or(0, &pieces);
        let jobs: Vec<Job> = [Job::Apply, Job::Read]
            .into_iter()
            .chain((0..n).map(Job::Piece))
            .collect();
        let done = map_on_cores(&jobs, name, |job| match job {
            Job::Apply => {
                let mut apply = apply.lock().ok()?;
                let last = prev.lock().ok()?.take();
                let applied = last
                    .as_ref()
                    .map_or(Ok(()), |(seg, parsed)| apply(seg, parsed));
                drop(last);
                Some(Done::Applied(applied))
            }
            Job::Read => Some(Done::Read(read())),
            Job::Piece(k) => current.as_ref().map(|seg| Done::Processed(piece(seg, *k))),
        });
        let (mut processed, mut next) = (Vec::with_capacity(n), None);
        for out in done {
            match out.flatten() {
                Some(Done::Processed(p)) => processed.push(p),
                Some(Done::Read(r)) => next = Some(r?),
                Some(Done::Applied(r)) => r?,
                None => return Err(stopped()),
            }
        }
        prev = Mutex::new(current.take().map(|seg| (seg, processed)));
        current = next.ok_or_else(&stopped)?;
    }
    Ok(())
}

/// Calls `f(i)` for every `i` in `0..n` on `threads` named workers (`NAME-0`, …), each taking the next index
/// from a shared counter, and returns how many indices were taken (less than `n` only if no worker could start
/// or every worker panicked). With one worker (one core, or one index) `f` runs on the calling thread, as that
/// worker would — a panic stops the loop there — without starting a thread: on one core a thread per call is pure
/// overhead (about a millisecond each under a sanitizer: the fuzzers ran at 49 inputs a second).
#[allow(clippy::disallowed_methods)] // the one parallel loop (clippy.toml)
pub fn for_each_index(n: usize, threads: usize, name: &str, f: impl Fn(usize) + Sync) -> usize {
    let workers = threads.max(1).min(n.max(1));
    let next = AtomicUsize::new(0);
    if workers == 1 {
        for i in 0..n {
            next.store(i + 1, Ordering::Relaxed);
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(i))).is_err() {
                break;
            }
        }
        return next.load(Ordering::Relaxed).min(n);
    }
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (next, f) = (&next, &f);
            // A worker that cannot start leaves its share to the others.
            let _ = std::thread::Builder::new()
                .name(format!("{name}-{w}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        f(i);
                    }
                });
        }
    });
    next.load(Ordering::Relaxed).min(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        let out = map_on_cores(&items, "test", |x| x * x);
        let expect: Vec<Option<u64>> = items.iter().map(|x| Some(x * x)).collect();
        assert_eq!(out, expect, "every item once, in order");
    }

    /// One worker runs on the calling thread (no thread started) and, as that worker would, stops at a panic:
    /// the indices before it done, the panicking one taken, none after.
    #[test]
    fn one_worker_runs_on_the_calling_thread_and_stops_at_a_panic() {
        let caller = std::thread::current().id();
        let seen = Mutex::new(Vec::new());
        let taken = for_each_index(10, 1, "one", |i| {
            assert_eq!(std::thread::current().id(), caller, "on the calling thread");
            assert_ne!(i, 4, "index 4 fails");
            seen.lock().expect("not poisoned").push(i);
        });
        assert_eq!(taken, 5, "stops after the panicking index");
        assert_eq!(*seen.lock().expect("not poisoned"), vec![0, 1, 2, 3]);
        assert_eq!(for_each_index(0, 1, "none", |_| {}), 0, "nothing to do");
    }
}
