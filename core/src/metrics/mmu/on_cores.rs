//! Many window lengths of one curve answered on every core ([`MmuCurve::answer_on_cores`]): what `gclab mmu` and
//! the app's log views ask of a log's curve (a 1 GB pause CSV's 19.6 M pauses: about 0.3 s a window on this
//! machine's core).

use std::sync::Mutex;

use super::{MmuCurve, WindowUtil};

/// The MMU and the worst windows at each window length asked, in the order asked. `[ns]`
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answers {
    /// `(window, MMU and where)` for each window length.
    pub mmu: Vec<(u64, WindowUtil)>,
    /// `(window, worst windows)` for each window length (at most the number asked, disjoint, worst first).
    pub worst: Vec<(u64, Vec<WindowUtil>)>,
}

impl MmuCurve<'_> {
    /// The MMU and the `worst` worst windows at every length of `windows`, the queries spread over the cores
    /// (`crate::parallel`), each on a view of the curve from a pool of one per core (own block caches; the
    /// answers are those of the curve itself; a view per query, made up front, took 1.2 GB for 200,000
    /// mutators). On an exact curve (any list of pauses: [`MmuCurve::exact`]) the MMU is the worst window's
    /// utilisation, bit for bit, so only the worst windows are searched; otherwise both (the MMU alone when `worst`
    /// is 0).
    pub fn answer_on_cores(&self, windows: &[u64], worst: usize) -> Answers {
        enum Answer {
            Mmu(WindowUtil),
            Worst(Vec<WindowUtil>),
        }
        let k = worst.max(1);
        let exact = self.exact();
        // The worst-window searches first: they take longest, and a short one at the end evens the cores out. None
        // when none is asked for and the MMU is not read from them.
        let search = worst > 0 || exact;
        let jobs: Vec<(bool, u64)> = (windows.iter().filter(|_| search).map(|&w| (true, w)))
            .chain(windows.iter().filter(|_| !exact).map(|&w| (false, w)))
            .collect();
        // As many views as workers: a worker takes a free one for each query and gives it back.
        let cores = std::thread::available_parallelism().map_or(1, |p| p.get());
        let pool: Vec<Mutex<Option<MmuCurve<'_>>>> = (0..cores.min(jobs.len()).max(1))
            .map(|_| Mutex::new(Some(self.view())))
            .collect();
        let answers = crate::parallel::map_on_cores(&jobs, "mmu", |&(is_worst, w)| {
            let view = pool.iter().find_map(|m| m.lock().ok()?.take())?;
            let answer = if is_worst {
                Answer::Worst(view.worst(w, k))
            } else {
                Answer::Mmu(view.mmu(w))
            };
            if let Some(mut slot) =
                (pool.iter()).find_map(|m| m.lock().ok().filter(|v| v.is_none()))
            {
                *slot = Some(view);
            }
            Some(answer)
        });
        let mut out = Answers::default();
        for (&(is_worst, w), answer) in jobs.iter().zip(answers) {
            // A worker that panicked (none should) leaves its query to this thread.
            match answer.flatten() {
                Some(Answer::Mmu(x)) => out.mmu.push((w, x)),
                Some(Answer::Worst(x)) => out.worst.push((w, x)),
                None if is_worst => out.worst.push((w, self.worst(w, k))),
                None => out.mmu.push((w, self.mmu(w))),
            }
        }
        if exact {
            out.mmu = (out.worst.iter())
                .map(|(w, list)| (*w, list.first().copied().unwrap_or_else(|| self.mmu(*w))))
                .collect();
        }
        if worst == 0 {
            out.worst.clear();
        }
        out
    }
}
