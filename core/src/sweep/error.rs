//! `SweepError`: why a plan could not be read or written, a point file was refused, or a merge found points
//! missing. Each message is one line naming the file (and field or index) and what was expected.

use crate::error::ScenarioError;

/// A failure of the plan / run / merge steps of a distributed sweep.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The plan file is not a valid plan (bad input).
    #[error("{path}: {message}")]
    Plan {
        /// The plan's path.
        path: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// The plan's scenario or a point's settings do not validate (bad input).
    #[error("{path}: {source}")]
    Scenario {
        /// The plan's path (or the scenario as given).
        path: String,
        /// The scenario error.
        source: ScenarioError,
    },
    /// A point file exists but is not this plan's result for that index (bad input: a foreign or edited file).
    #[error("{path}: {message}")]
    Point {
        /// The point file.
        path: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// Some points have no result yet (the merge cannot write a complete sweep).
    #[error("{dir}: {count} of {total} points missing: indices {indices}")]
    Missing {
        /// The results folder.
        dir: String,
        /// How many are missing.
        count: u64,
        /// Points in the plan.
        total: u64,
        /// The missing indices as ranges (`7, 19-30, …`).
        indices: String,
    },
    /// Reading or writing a file failed (not the input's fault).
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        message: String,
    },
}

impl SweepError {
    /// True when the error is the input's fault (exit status 2); false for missing points and I/O (status 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            SweepError::Plan { .. } | SweepError::Scenario { .. } | SweepError::Point { .. }
        )
    }

    /// An I/O failure on `path`.
    pub fn io(path: &std::path::Path, e: &std::io::Error) -> SweepError {
        SweepError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}

/// `indices` (ascending) as ranges, at most `max_ranges` of them then `…`: `0, 7, 19-30`.
pub fn format_ranges(indices: &[u64], max_ranges: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end = indices[i];
        }
        if parts.len() == max_ranges {
            parts.push("…".into());
            break;
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_collapse_runs_and_stop_at_the_cap() {
        assert_eq!(
            format_ranges(&[0, 7, 19, 20, 21], 10),
            "0, 7, 19-21",
            "runs"
        );
        assert_eq!(format_ranges(&[1, 3, 5, 7], 2), "1, 3, …", "capped");
        assert_eq!(format_ranges(&[], 2), "", "none");
    }
}
