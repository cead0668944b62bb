//! The one error of the core: a version whose parts do not agree (a shard that names a chunk its
//! meta does not list, a term whose postings do not decode, a retrieved chunk with no record).
//! The caller renders it; the code and help say what to run.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// A short, stable code (`invariant`).
    pub code: &'static str,
    pub message: String,
    /// What to run about it.
    pub help: String,
}

impl Error {
    /// A deployed version's stored value that is not what askzico writes there.
    pub(crate) fn deployed(message: String) -> Self {
        Error {
            code: "deployed",
            message,
            help:
                "the version is incomplete or was changed outside askzico: deploy the build again"
                    .to_string(),
        }
    }

    pub(crate) fn invariant(message: String, help: &str) -> Self {
        Error {
            code: "invariant",
            message,
            help: help.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}
