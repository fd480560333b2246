//! Honest marks for the reproduction reports: the one tolerance rule both papers' tables are scored by.
//!
//! The rule (issue #17, item 3; the brief's "Honest marks"): a *predicted* number is within tolerance when it is
//! within ±10 % of the paper's; a *count* whose paper value is 10 or less is within ±max(1, 20 %). There is no
//! 0.5×–2× band anywhere. Every reported cell is one of three kinds, labelled in the report: an [`Kind::Input`]
//! (given by the paper or fitted to it), [`Kind::Calibrated`] (chosen to match a named calibration set) or
//! [`Kind::Predicted`] (everything else). Only predicted cells are scored; a [`Tally`] counts them per table and
//! writes the table's summary line.

use std::fmt::Write as _;

/// What a reported number is, relative to the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Given by the paper or fitted to it (e.g. Table 2's k-allocation columns, which the workloads were fitted to).
    Input,
    /// Chosen to match a named calibration set (e.g. Table 3's k = 10 column, Table 1's GC CPU column).
    Calibrated,
    /// Everything else: what the model says without being told.
    Predicted,
}

impl Kind {
    /// The label a report prints.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Input => "input",
            Kind::Calibrated => "calibrated",
            Kind::Predicted => "predicted",
        }
    }
}

/// What kind of quantity is compared: counts get the small-number allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// A count of events (collections, transitions, trims): ±max(1, 20 %) when the paper's count is ≤ 10.
    Count,
    /// Any other number (energy, time, percentages, ratios): ±10 %.
    Value,
}

/// Relative tolerance for values and for counts above 10.
pub const TOLERANCE: f64 = 0.10;
/// Relative tolerance for counts of 10 or less (with an absolute floor of [`SMALL_COUNT_FLOOR`]).
pub const SMALL_COUNT_TOLERANCE: f64 = 0.20;
/// Absolute allowance for counts of 10 or less.
pub const SMALL_COUNT_FLOOR: f64 = 1.0;
/// The largest paper count that gets the small-count allowance.
pub const SMALL_COUNT_MAX: f64 = 10.0;

/// Whether `ours` is within the stated tolerance of the paper's number.
pub fn within(quantity: Quantity, ours: f64, paper: f64) -> bool {
    if !ours.is_finite() || !paper.is_finite() {
        return false;
    }
    let diff = (ours - paper).abs();
    match quantity {
        Quantity::Count if paper.abs() <= SMALL_COUNT_MAX => {
            diff <= (SMALL_COUNT_TOLERANCE * paper.abs()).max(SMALL_COUNT_FLOOR) + 1e-9
        }
        _ => diff <= TOLERANCE * paper.abs() + 1e-12,
    }
}

/// The mark of a predicted cell: `✓` or `✗` followed by the ratio ours/paper (`✓ 1.04×`; `✗ 0.50×`). A paper value
/// of zero has no ratio: the cell reads `✓ =` or `✗ +N`.
pub fn mark(quantity: Quantity, ours: f64, paper: f64) -> String {
    let ok = if within(quantity, ours, paper) { "✓" } else { "✗" };
    if paper == 0.0 {
        if ours == 0.0 {
            format!("{ok} =")
        } else {
            format!("{ok} {ours:+}")
        }
    } else {
        format!("{ok} {:.2}×", ours / paper)
    }
}

/// A seed band: the minimum and maximum of a predicted number over seeds, written `min–max` (or one value when they
/// agree after formatting).
pub fn band(values: &[f64], decimals: usize) -> String {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if values.is_empty() {
        return "–".to_string();
    }
    let a = format!("{lo:.decimals$}");
    let b = format!("{hi:.decimals$}");
    if a == b { a } else { format!("{a}–{b}") }
}

/// Counts the predicted cells of one table that are within tolerance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Predicted cells within tolerance.
    pub within: usize,
    /// Predicted cells scored.
    pub total: usize,
}

impl Tally {
    /// Scores one predicted cell and returns its mark (see [`mark`]).
    pub fn score(&mut self, quantity: Quantity, ours: f64, paper: f64) -> String {
        self.total += 1;
        if within(quantity, ours, paper) {
            self.within += 1;
        }
        mark(quantity, ours, paper)
    }

    /// The table's summary line: `**Summary — NAME: W of T predicted cells within tolerance (±10 %; counts ≤ 10:
    /// ±max(1, 20 %)).**`
    pub fn summary_line(&self, name: &str) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "**Summary — {name}: {} of {} predicted cells within tolerance (±10 %; counts ≤ 10: ±max(1, 20 %)).**",
            self.within, self.total
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_held_to_ten_percent() {
        assert!(within(Quantity::Value, 110.0, 100.0), "+10 % is within");
        assert!(!within(Quantity::Value, 110.5, 100.0), "+10.5 % is not");
        assert!(within(Quantity::Value, -0.9, -1.0), "negative values use |paper|");
        assert!(!within(Quantity::Value, 0.5, 1.0), "0.5× is a miss, not a ✓");
        assert!(!within(Quantity::Value, 2.0, 1.0), "2× is a miss, not a ✓");
    }

    #[test]
    fn small_counts_get_one_or_twenty_percent() {
        assert!(within(Quantity::Count, 4.0, 3.0), "±1 at 3");
        assert!(!within(Quantity::Count, 5.0, 3.0), "±2 at 3 is out");
        assert!(within(Quantity::Count, 12.0, 10.0), "20 % of 10 is 2");
        assert!(!within(Quantity::Count, 13.0, 10.0), "3 off at 10 is out");
        assert!(within(Quantity::Count, 1.0, 0.0), "±1 at 0");
        assert!(!within(Quantity::Count, 9.0, 4.0), "kvideo 9 vs 4 is out");
        assert!(!within(Quantity::Count, 10.0, 7.0), "Pandora CONC 10 vs 7 is out");
    }

    #[test]
    fn large_counts_use_ten_percent() {
        assert!(within(Quantity::Count, 110.0, 100.0), "+10 % at 100");
        assert!(!within(Quantity::Count, 132.0, 100.0), "kshape 132 vs 100 is out");
        assert!(!within(Quantity::Count, 13.0, 11.0), "above 10 the 20 % allowance is gone");
    }

    #[test]
    fn marks_carry_the_ratio_and_tallies_count() {
        let mut t = Tally::default();
        assert_eq!(t.score(Quantity::Count, 41.0, 26.0), "✗ 1.58×");
        assert_eq!(t.score(Quantity::Count, 26.0, 26.0), "✓ 1.00×");
        assert_eq!(t.score(Quantity::Count, 0.0, 0.0), "✓ =");
        assert_eq!(t, Tally { within: 2, total: 3 });
        assert!(t.summary_line("Table 2").contains("2 of 3"), "summary counts");
        assert_eq!(band(&[3.0, 5.0, 4.0], 0), "3–5");
        assert_eq!(band(&[1.0, 1.0], 1), "1.0");
    }
}
