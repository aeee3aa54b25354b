//! Errors of the simulator, each naming what is wrong and where.

use std::fmt;

/// An error loading or running a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum SimError {
    /// The scenario is invalid: `file:line: key: message`.
    Scenario {
        /// Scenario name (usually the file name).
        file: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// The key or table at fault, e.g. `flow[2].to`.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// Writing an output file failed.
    Io(String),
}

impl SimError {
    pub(crate) fn at(
        file: &str,
        line: Option<usize>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> SimError {
        SimError::Scenario {
            file: file.to_string(),
            line,
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Scenario { file, line, key, message } => {
                write!(f, "{file}")?;
                if let Some(l) = line {
                    write!(f, ":{l}")?;
                }
                if key.is_empty() {
                    write!(f, ": {message}")
                } else {
                    write!(f, ": {key}: {message}")
                }
            }
            SimError::Io(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for SimError {}
