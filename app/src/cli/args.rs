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
}

impl Args {
    /// Parses `args` accepting only `allowed` flags (each takes a value).
    pub fn parse(args: &[String], allowed: &[&str]) -> Result<Args, CliError> {
        let mut out = Args::default();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a.starts_with("--") {
                let (flag, inline) = match a.split_once('=') {
                    Some((f, v)) => (f.to_string(), Some(v.to_string())),
                    None => (a.clone(), None),
                };
                if !allowed.contains(&flag.as_str()) {
                    return Err(CliError::input(format!(
                        "unknown option `{flag}` (expected one of {})",
                        allowed.join(", ")
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
