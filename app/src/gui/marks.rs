//! What a lesson step points at (issue #19 item 1), as the views draw it: a step's highlights — a time span, a
//! collection, an address range, a bank — become [`Mark`]s in the coordinates of the plot that shows them (seconds
//! on the time plots, KiB on the heap map's address axis), and its `time_range_ms` becomes a one-off zoom of the
//! time axes. The MinMU window highlight is not a mark: it sets the MinMU view's window (`mmu_window_ms`).
//!
//! Pure data, no drawing: [`crate::gui::views::highlight`] draws the marks, and the tests read them here.

use gclab_core::lesson::{Highlight, Step};

/// The highlights of the lesson step on screen and the time range it zooms to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LessonMarks {
    /// The step's highlights.
    pub highlights: Vec<Highlight>,
    /// The time range the step shows. `[s]`
    pub time_range_s: Option<[f64; 2]>,
    /// Bumped each time a step is applied: a plot zooms to [`Self::time_range_s`] once per step, then the class
    /// (or the teacher) may zoom and pan freely. 0: no lesson step applied yet.
    pub step_token: u64,
}

/// One thing to draw on a plot.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A shaded span of time on the time plots and the heap map. `[s]`
    TimeSpan {
        /// Start and end. `[s]`
        range_s: [f64; 2],
        /// Its label.
        label: String,
    },
    /// One collection's span, outlined on the timelines. `[s]`
    Collection {
        /// Start and end. `[s]`
        range_s: [f64; 2],
        /// Its label (`collection #3`).
        label: String,
    },
    /// A band of addresses across the heap map. `[KiB]`
    AddressBand {
        /// Low and high address. `[KiB]`
        range_kib: [f64; 2],
        /// Its label.
        label: String,
    },
    /// One bank's row, outlined across the heap map. `[KiB]`
    BankRow {
        /// Low and high address of the bank. `[KiB]`
        range_kib: [f64; 2],
        /// Its label (`bank 3`).
        label: String,
    },
}

impl LessonMarks {
    /// Takes the highlights and time range of `step` (a new step: every plot zooms once more).
    pub fn set(&mut self, step: &Step) {
        self.highlights = step.highlight.clone();
        self.time_range_s = step.time_range_ms.map(|[a, b]| [a * 1e-3, b * 1e-3]);
        self.step_token += 1;
    }

    /// No lesson: nothing highlighted, no zoom.
    pub fn clear(&mut self) {
        *self = LessonMarks::default();
    }

    /// The marks on a time axis: time spans, and the collections among `collections_s` (start, end in s, in time
    /// order) that the step names. A collection the source does not have is not drawn.
    pub fn time_marks(&self, collections_s: &[[f64; 2]]) -> Vec<Mark> {
        self.highlights
            .iter()
            .filter_map(|h| match *h {
                Highlight::TimeSpan { from_ms, to_ms } => Some(Mark::TimeSpan {
                    range_s: [from_ms * 1e-3, to_ms * 1e-3],
                    label: format!("{} – {}", fmt_ms(from_ms), fmt_ms(to_ms)),
                }),
                Highlight::Collection { index } => {
                    collections_s
                        .get(index as usize)
                        .map(|&r| Mark::Collection {
                            range_s: r,
                            label: format!("collection #{}", index + 1),
                        })
                }
                _ => None,
            })
            .collect()
    }

    /// The marks on the heap map's address axis, for banks of `bank_kib` KiB (`banks` of them): address bands and
    /// bank rows. A bank past the heap is not drawn.
    pub fn address_marks(&self, bank_kib: f64, banks: u32) -> Vec<Mark> {
        self.highlights
            .iter()
            .filter_map(|h| match *h {
                Highlight::AddressRange { from_kib, to_kib } => Some(Mark::AddressBand {
                    range_kib: [from_kib, to_kib],
                    label: format!("{from_kib}–{to_kib} KiB"),
                }),
                Highlight::Bank { bank } if bank < banks && bank_kib > 0.0 => Some(Mark::BankRow {
                    range_kib: [f64::from(bank) * bank_kib, f64::from(bank + 1) * bank_kib],
                    label: format!("bank {bank}"),
                }),
                _ => None,
            })
            .collect()
    }
}

/// `250 ms`, `1.5 s`.
fn fmt_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(highlight: Vec<Highlight>, range: Option<[f64; 2]>) -> Step {
        let lesson = gclab_core::lesson::Lesson::parse(
            "id = \"x\"\ntitle = \"t\"\n[[steps]]\ntitle = \"a\"\ntext = \"b\"\nscenario = \"preset:default\"\n",
            "x.toml",
        )
        .expect("lesson");
        let mut s = lesson.steps[0].clone();
        s.highlight = highlight;
        s.time_range_ms = range;
        s
    }

    #[test]
    fn each_highlight_kind_becomes_a_mark_on_the_axis_it_concerns() {
        let mut m = LessonMarks::default();
        m.set(&step(
            vec![
                Highlight::TimeSpan {
                    from_ms: 100.0,
                    to_ms: 250.0,
                },
                Highlight::Collection { index: 1 },
                Highlight::Collection { index: 9 },
                Highlight::AddressRange {
                    from_kib: 64.0,
                    to_kib: 128.0,
                },
                Highlight::Bank { bank: 2 },
                Highlight::Bank { bank: 8 },
                Highlight::MmuWindow { window_ms: 10.0 },
            ],
            Some([200.0, 400.0]),
        ));
        assert_eq!(m.time_range_s, Some([0.2, 0.4]), "the range in seconds");
        assert_eq!(m.step_token, 1, "one step applied");
        let t = m.time_marks(&[[0.01, 0.02], [0.3, 0.31]]);
        assert_eq!(
            t,
            vec![
                Mark::TimeSpan {
                    range_s: [0.1, 0.25],
                    label: "100 ms – 250 ms".into()
                },
                Mark::Collection {
                    range_s: [0.3, 0.31],
                    label: "collection #2".into()
                },
            ],
            "collection 9 does not exist: not drawn"
        );
        let a = m.address_marks(32.0, 4);
        assert_eq!(
            a,
            vec![
                Mark::AddressBand {
                    range_kib: [64.0, 128.0],
                    label: "64–128 KiB".into()
                },
                Mark::BankRow {
                    range_kib: [64.0, 96.0],
                    label: "bank 2".into()
                },
            ],
            "bank 8 of 4 is past the heap: not drawn"
        );
        m.clear();
        assert!(
            m.time_marks(&[[0.0, 1.0]]).is_empty() && m.time_range_s.is_none(),
            "no lesson: nothing marked"
        );
    }
}
