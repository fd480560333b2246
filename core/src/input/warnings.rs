//! The input layer's one warnings type ([`Warnings`]), shared by the GC-log and allocation-trace importers:
//! whole-file notes plus the lines an importer passed over, grouped by reason with their count and first line
//! numbers, so that nothing is dropped silently.

use std::collections::BTreeMap;

/// Warnings reporter: whole-file notes plus skipped lines grouped by reason (count and first line numbers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Warnings {
    notes: Vec<String>,
    skipped: BTreeMap<String, (usize, Vec<usize>)>,
}

impl Warnings {
    /// How many line numbers are kept per reason.
    const FIRST_LINES: usize = 5;

    /// A note about the whole input (e.g. how pauses were placed).
    pub fn note(&mut self, message: impl Into<String>) {
        self.notes.push(message.into());
    }

    /// Line `line` was not used, for `reason`.
    pub fn skip(&mut self, line: usize, reason: &str) {
        // Look up before allocating the key: a log may skip millions of lines for a handful of reasons.
        let entry = match self.skipped.get_mut(reason) {
            Some(e) => e,
            None => self.skipped.entry(reason.to_string()).or_default(),
        };
        entry.0 += 1;
        if entry.1.len() < Self::FIRST_LINES {
            entry.1.push(line);
        }
    }

    /// Number of lines skipped, all reasons.
    pub fn skipped_lines(&self) -> usize {
        self.skipped.values().map(|(n, _)| n).sum()
    }

    /// The first skipped line and its reason, if any; lines skipped for a reason in `unless` only when no other
    /// reason applies (so that an error names the malformed line rather than the first unrelated one).
    pub fn first_skipped(&self, unless: &[&str]) -> Option<(usize, &str)> {
        let first = |pick: &dyn Fn(&str) -> bool| {
            self.skipped
                .iter()
                .filter(|(r, _)| pick(r))
                .filter_map(|(r, (_, lines))| lines.first().map(|&l| (l, r.as_str())))
                .min()
        };
        first(&|r| !unless.contains(&r)).or_else(|| first(&|_| true))
    }

    /// True when there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty() && self.skipped.is_empty()
    }

    /// One line per note and per skip reason, e.g. `3 lines skipped: not a GC line (lines 4, 9, 15)`.
    pub fn messages(&self) -> Vec<String> {
        let mut out = self.notes.clone();
        for (reason, (count, lines)) in &self.skipped {
            let list: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let more = if *count > lines.len() { ", …" } else { "" };
            let (noun, lines_word) = if *count == 1 {
                ("line", "line")
            } else {
                ("lines", "lines")
            };
            out.push(format!(
                "{count} {noun} skipped: {reason} ({lines_word} {}{more})",
                list.join(", ")
            ));
        }
        out
    }
}
