//! `Args`: one positional SCENARIO plus repeatable `--flag VALUE` options (also `--flag=VALUE`), checked against
//! the flags a verb accepts so that a typo is an error, not silently ignored.

use super::CliError;

/// Parsed arguments of one verb.
#[derive(Debug, Default)]
pub struct Args {
    /// The SCENARIO (or other positional input).
    pub input: String,
    /// Flags in order: (`--set`, `heap.size=64KiB`).
    pub flags: Vec<(String, String)>,
    /// Positional arguments after the first (verbs that take several, e.g. `sweep merge PLAN DIR`).
    pub rest: Vec<String>,
    /// Switches given (flags without a value, e.g. `--quiet`).
    pub switches: Vec<String>,
}

impl Args {
    /// Parses `args` accepting only `allowed` flags (each takes a value).
    pub fn parse(args: &[String], allowed: &[&str]) -> Result<Args, CliError> {
        Args::parse_with(args, allowed, &[], 1)
    }

    /// Parses `args` accepting `allowed` flags (each takes a value), `switches` (no value) and up to
    /// `positionals` positional arguments (at least one).
    pub fn parse_with(
        args: &[String],
        allowed: &[&str],
        switches: &[&str],
        positionals: usize,
    ) -> Result<Args, CliError> {
        let mut out = Args::default();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a.starts_with("--")
                || (a.len() > 1 && a.starts_with('-') && allowed.contains(&a.as_str()))
            {
                let (flag, inline) = match a.split_once('=') {
                    Some((f, v)) => (f.to_string(), Some(v.to_string())),
                    None => (a.clone(), None),
                };
                if inline.is_none() && switches.contains(&flag.as_str()) {
                    out.switches.push(flag);
                    i += 1;
                    continue;
                }
                if !allowed.contains(&flag.as_str()) {
                    let all: Vec<&str> = allowed.iter().chain(switches).copied().collect();
                    return Err(CliError::input(format!(
                        "unknown option `{flag}` (expected one of {})",
                        all.join(", ")
                    )));
                }
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i).cloned().ok_or_else(|| {
                            CliError::input(format!("option `{flag}` needs a value"))
                        })?
                    }
                };
                out.flags.push((flag, value));
            } else if out.input.is_empty() {
                out.input = a.clone();
            } else if out.rest.len() + 1 < positionals {
                out.rest.push(a.clone());
            } else if positionals > 1 {
                return Err(CliError::input(format!(
                    "unexpected argument `{a}` (at most {positionals} are taken)"
                )));
            } else {
                return Err(CliError::input(format!(
                    "unexpected argument `{a}` (only one SCENARIO is taken)"
                )));
            }
            i += 1;
        }
        if out.input.is_empty() {
            return Err(CliError::input(
                "expected a SCENARIO: a TOML file or preset:NAME (see `gclab presets`)",
            ));
        }
        Ok(out)
    }

    /// True when the switch `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// All values of `flag`, in order.
    pub fn all(&self, flag: &str) -> Vec<String> {
        self.flags
            .iter()
            .filter(|(f, _)| f == flag)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The last value of `flag`.
    pub fn last(&self, flag: &str) -> Option<String> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| v.clone())
    }
}
