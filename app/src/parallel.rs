//! The one way the app and the CLI spread independent work over the machine's cores: [`map_on_cores`] hands out
//! items by index to one named worker thread per core (work stealing by an atomic counter) and returns the results
//! in input order. Used by `gclab reproduce`; each item must be a pure function of its input (the simulations are).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Applies `f` to every item on as many threads as there are cores and returns the results in input order. A slot
/// is `None` only if the worker running it panicked or could not start.
pub fn map_on_cores<T: Sync, R: Send>(
    items: &[T],
    name: &str,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Option<R>> {
    let n = items.len();
    let workers = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .min(n.max(1));
    let next = AtomicUsize::new(0);
    let per_worker: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|w| {
                let (next, f) = (&next, &f);
                std::thread::Builder::new()
                    .name(format!("{name}-{w}"))
                    .spawn_scoped(scope, move || {
                        let mut out = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(i) else { break };
                            out.push((i, f(item)));
                        }
                        out
                    })
                    .ok()
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut slots: Vec<Option<R>> = (0..n).map(|_| None).collect();
    for (i, r) in per_worker.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
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
