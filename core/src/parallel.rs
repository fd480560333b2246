//! The one way gclab spreads independent work over the machine's cores: [`map_on_cores`] hands out items by index
//! to one named worker thread per core (work stealing by an atomic counter) and returns the results in input order;
//! [`for_each_index`] is the loop under it, used directly by the sweep runner, which streams each finished point
//! instead of keeping it. Used by `gclab reproduce`, `gclab sweep`, `gclab lesson check`, `gclab mmu`'s windows, the
//! app's sweeps and heap raster, the logcat importer's line parse (`importers::lines::parse_stream_split`) and the
//! pause CSV's row parse (`importers::csv_split`); each item's result must depend on its input alone, so that the
//! answer is the same on any number of cores.

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

/// Calls `f(i)` for every `i` in `0..n` on `threads` named workers (`NAME-0`, …), each taking the next index
/// from a shared counter, and returns how many indices were taken (less than `n` only if no worker could start
/// or every worker panicked).
#[allow(clippy::disallowed_methods)] // the one parallel loop (clippy.toml)
pub fn for_each_index(n: usize, threads: usize, name: &str, f: impl Fn(usize) + Sync) -> usize {
    let workers = threads.max(1).min(n.max(1));
    let next = AtomicUsize::new(0);
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
}
