//! Names numbered in order of first appearance (mutators, series), found by hash beside the list the importers
//! keep: a file may name a new mutator on every row, and a search of the list per row made such a file quadratic
//! (200,000 distinct mutators in a 4.4 MB pause CSV took 78 s, mostly comparing names).

use std::collections::HashMap;

use super::{ImportError, ImportErrorKind};

/// Most distinct mutators (or utilisation series) an input may name: each is a series measured on its own
/// (about 2.7 KB in memory even when it holds one pause), so more are an error at the row that names one more
/// — 2^16, far above any process's threads (Go's processors: at most 256) — instead of gigabytes for a small file.
pub const MAX_MUTATORS: usize = 1 << 16;

/// The number of each name in a list the caller keeps (`PauseSeries::mutators`, a chunk's texts).
#[derive(Debug, Default)]
pub(crate) struct NameIndex(HashMap<String, usize>);

impl NameIndex {
    /// The number of `name` in `list`, which holds the names given so far in order; appended when new.
    pub(crate) fn id(&mut self, list: &mut Vec<String>, name: &str) -> usize {
        if let Some(&k) = self.0.get(name) {
            return k;
        }
        list.push(name.to_string());
        self.0.insert(name.to_string(), list.len() - 1);
        list.len() - 1
    }

    /// [`NameIndex::id`] of a mutator or series: the error ([`MAX_MUTATORS`]) at line `line()` of `file` when it
    /// would be one too many.
    pub(crate) fn mutator(
        &mut self,
        list: &mut Vec<String>,
        name: &str,
        file: &str,
        line: impl FnOnce() -> usize,
    ) -> Result<usize, ImportError> {
        if let Some(&k) = self.0.get(name) {
            return Ok(k);
        }
        if list.len() >= MAX_MUTATORS {
            return Err(ImportError::new(
                file,
                line(),
                ImportErrorKind::TooManyMutators {
                    name: name.to_string(),
                    limit: MAX_MUTATORS,
                },
            ));
        }
        Ok(self.id(list, name))
    }
}

/// Texts of the rows parsed together, each once, numbered in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct Texts {
    pub(crate) list: Vec<String>,
    index: NameIndex,
    /// The numbers of the last two texts asked for: most rows repeat one of them (a CSV's one mutator or series,
    /// its kind), and comparing them is cheaper than the hash (a utilisation CSV's rows spent a quarter of their
    /// parse in the map's lookup of `""`).
    recent: [usize; 2],
}

impl Texts {
    /// The number of `text`, given a new one when it is new.
    pub(crate) fn id(&mut self, text: &str) -> usize {
        let [a, b] = self.recent;
        let same = |k: usize| {
            self.list
                .get(k)
                .is_some_and(|t| t.len() == text.len() && (text.is_empty() || t == text))
        };
        if same(a) {
            return a;
        }
        let k = if same(b) {
            b
        } else {
            self.index.id(&mut self.list, text)
        };
        self.recent = [k, a];
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::importers::{logcat, pauses_csv, util_csv};

    /// `rows` lines, the k-th naming mutator (or pid, or series) k.
    fn named(head: &str, rows: usize, row: impl Fn(usize) -> String) -> String {
        let mut text = String::from(head);
        (0..rows).for_each(|k| text.push_str(&row(k)));
        text
    }

    #[test]
    fn one_mutator_past_the_cap_is_an_error_at_its_line_in_every_importer() {
        let n = MAX_MUTATORS + 1;
        let csv = named("start_ns,end_ns,mutator\n", n, |k| {
            format!("{k},{},m{k}\n", k + 1)
        });
        let e = pauses_csv::parse("p.csv", &csv).expect_err("too many");
        assert_eq!(e.line, n + 1, "{e}");
        assert!(
            e.to_string()
                .contains("`m65536` is a mutator past the first 65536"),
            "{e}"
        );
        let util = named("time_ns,util,series\n", n, |k| format!("{k},0.5,s{k}\n"));
        let e = util_csv::parse("u.csv", &util).expect_err("too many");
        assert_eq!(e.line, n + 1, "{e}");
        let lines = named("", n, |k| {
            format!(
                "01-01 00:00:01.000 {k} 11 D dalvikvm: GC_FOR_ALLOC freed 1K, 5% free 1K/2K, paused 1ms, total 1ms\n"
            )
        });
        let e = logcat::parse("l.txt", &lines).expect_err("too many");
        assert_eq!((e.file.as_str(), e.line), ("l.txt", n), "{e}");
        // At the cap itself, every importer reads the file.
        let csv = named("start_ns,end_ns,mutator\n", n - 1, |k| {
            format!("{k},{},m{k}\n", k + 1)
        });
        assert_eq!(
            pauses_csv::parse("p.csv", &csv).map(|p| p.mutators.len()),
            Ok(MAX_MUTATORS)
        );
    }

    #[test]
    fn names_are_numbered_in_order_of_first_appearance() {
        let mut t = Texts::default();
        let ids: Vec<usize> = ["b", "a", "b", "", "a", "c"]
            .iter()
            .map(|s| t.id(s))
            .collect();
        assert_eq!(ids, [0, 1, 0, 2, 1, 3]);
        assert_eq!(t.list, ["b", "a", "", "c"]);
    }
}
