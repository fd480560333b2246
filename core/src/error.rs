//! Errors of the core: one enum for everything that can be wrong with a scenario or a workload profile, and one
//! for a run that could not finish. Every message names the file, the line or field, and what was expected, so
//! that the CLI can print it as one line and exit with status 2.

use std::fmt;

/// Where a bad value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file on disk or an embedded preset (`preset:kvm/kwml`), optionally with a 1-based line.
    File {
        /// Path or `preset:NAME`.
        file: String,
        /// 1-based line, when the value is in the file.
        line: Option<usize>,
    },
    /// A `--set KEY=VALUE` override from the command line.
    Override(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File {
                file,
                line: Some(l),
            } => write!(f, "{file}:{l}"),
            Origin::File { file, line: None } => write!(f, "{file}"),
            Origin::Override(arg) => write!(f, "--set {arg}"),
        }
    }
}

/// Anything wrong with a scenario, a workload profile or a command-line override.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{path}: cannot read file: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The operating system's reason.
        message: String,
    },
    /// The text is not valid TOML, or a value has the wrong type or an unknown key.
    #[error("{origin}: {message}")]
    Syntax {
        /// File and line.
        origin: Origin,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A field has a value outside its allowed range or set.
    #[error("{origin}: field `{field}`: {message}")]
    Field {
        /// File and line, or the override.
        origin: Origin,
        /// Dotted path of the field (`heap.bank_size`).
        field: String,
        /// What was expected.
        message: String,
    },
    /// `preset:NAME` names no embedded preset.
    #[error("unknown preset `{name}` (run `gclab presets` for the list; e.g. {example})")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// One valid name, as an example.
        example: String,
    },
    /// A `--set` argument is not of the form `KEY=VALUE`.
    #[error("--set {arg}: {message}")]
    BadOverride {
        /// The argument as given.
        arg: String,
        /// What was expected.
        message: String,
    },
}

/// Why a simulation stopped without a [`crate::Run`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The caller cancelled it (a newer request, or the user).
    #[error("simulation cancelled")]
    Cancelled,
    /// The scenario asks for something this build cannot simulate yet.
    #[error("{0}")]
    Unsupported(String),
    /// The model reached a state it cannot leave (a bug in gclab; the message says where).
    #[error("{0}")]
    Model(String),
}
