//! The rounds of an import parsed on every core, shared by the GC logs' lines
//! ([`super::lines::parse_stream_split`]) and the pause CSV's rows ([`super::csv_split::rows_on_cores`]): each
//! round of the one parallel loop ([`crate::parallel`]) applies the segment parsed in the round before, in file
//! order, reads the segment of the round after, and parses this round's segment in pieces — three kinds of job on
//! the cores. The result is the sequential one's as long as a piece's parse depends on the piece alone.

use std::sync::Mutex;

use super::{ImportError, ImportErrorKind};

/// One job of a round.
enum Job {
    /// Apply the segment parsed in the round before.
    Apply,
    /// Read the segment of the round after.
    Read,
    /// Parse piece k of this round's segment.
    Parse(usize),
}

/// What a [`Job`] gives.
enum Done<S, P> {
    Applied(Result<(), ImportError>),
    Read(Result<Option<S>, ImportError>),
    Parsed(P),
}

/// Reads segments with `read` (`None` at the end), parses piece k of each with `parse` (`pieces` of them), and
/// hands each segment with its pieces' results, in order, to `apply`. The first error of `apply` (the earlier
/// rows) wins over a read error of the same round; a read error is returned as it comes.
pub(crate) fn in_rounds<S: Send + Sync, P: Send + Sync>(
    file: &str,
    name: &str,
    read: impl Fn() -> Result<Option<S>, ImportError> + Sync,
    pieces: impl Fn(&S) -> usize,
    parse: impl Fn(&S, usize) -> P + Sync,
    apply: impl FnMut(&S, &[P]) -> Result<(), ImportError> + Send,
) -> Result<(), ImportError> {
    let apply = Mutex::new(apply);
    let mut current = read()?;
    let mut prev: Option<(S, Vec<P>)> = None;
    while current.is_some() || prev.is_some() {
        let n = current.as_ref().map_or(0, &pieces);
        let jobs: Vec<Job> = [Job::Apply, Job::Read]
            .into_iter()
            .chain((0..n).map(Job::Parse))
            .collect();
        let done = crate::parallel::map_on_cores(&jobs, name, |job| match job {
            Job::Apply => {
                let mut apply = apply.lock().ok()?;
                let applied = prev
                    .as_ref()
                    .map_or(Ok(()), |(seg, parsed)| apply(seg, parsed));
                Some(Done::Applied(applied))
            }
            Job::Read => Some(Done::Read(read())),
            Job::Parse(k) => current.as_ref().map(|seg| Done::Parsed(parse(seg, *k))),
        });
        let (mut parsed, mut next) = (Vec::with_capacity(n), None);
        for out in done {
            match out.flatten() {
                Some(Done::Parsed(p)) => parsed.push(p),
                Some(Done::Read(r)) => next = Some(r?),
                Some(Done::Applied(r)) => r?,
                None => return Err(stopped(file)),
            }
        }
        prev = current.take().map(|seg| (seg, parsed));
        current = next.ok_or_else(|| stopped(file))?;
    }
    Ok(())
}

/// The error when a worker of [`in_rounds`] stopped (a panic, which none should).
pub(crate) fn stopped(file: &str) -> ImportError {
    ImportError::new(
        file,
        0,
        ImportErrorKind::Io("a parsing thread stopped (internal error)".into()),
    )
}
