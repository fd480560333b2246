//! The importers' use of [`crate::parallel::in_rounds`], shared by the GC logs' lines
//! ([`super::lines::parse_stream_split`]) and the pause CSV's rows ([`super::csv_split::rows_on_cores`]): each
//! round applies the segment parsed in the round before, in file order, reads the segment of the round after, and
//! parses this round's segment in pieces. The result is the sequential one's as long as a piece's parse depends on
//! the piece alone.

use super::{ImportError, ImportErrorKind};

/// Reads segments with `read` (`None` at the end), parses piece k of each with `parse` (`pieces` of them), and
/// hands each segment with its pieces' results, in order, to `apply` ([`crate::parallel::in_rounds`], with the
/// importers' error when a worker stopped).
pub(crate) fn in_rounds<S: Send + Sync, P: Send + Sync>(
    file: &str,
    name: &str,
    read: impl Fn() -> Result<Option<S>, ImportError> + Sync,
    pieces: impl Fn(&S) -> usize,
    parse: impl Fn(&S, usize) -> P + Sync,
    apply: impl FnMut(&S, &[P]) -> Result<(), ImportError> + Send,
) -> Result<(), ImportError> {
    crate::parallel::in_rounds(name, read, pieces, parse, apply, || stopped(file))
}

/// The error when a worker of [`in_rounds`] stopped (a panic, which none should).
pub(crate) fn stopped(file: &str) -> ImportError {
    ImportError::new(
        file,
        0,
        ImportErrorKind::Io("a parsing thread stopped (internal error)".into()),
    )
}
