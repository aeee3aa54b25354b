//! Configuration files of wmediumd and yawmd, for `sdmac-mediumd`.
//!
//! Two layers:
//! - [`libconfig`]: a parser of the libconfig grammar (the file format wmediumd and
//!   yawmd read with the C libconfig library), producing a [`libconfig::Value`] tree
//!   in which every setting and every value knows its line and column; and a printer
//!   back to libconfig syntax.
//! - [`wmediumd`]: the meaning of such a tree as a wmediumd configuration (`ifaces` +
//!   `model`, with the Mininet-WiFi fork's keys and the legacy `path_loss` group) or
//!   as yawmd's multi-medium configuration (`medium = ( { id, interfaces, model } )`),
//!   validated, with defaults filled in and path-loss models mapped onto
//!   [`sdmac_phy::PathLoss`].
//!
//! Every error is a [`ConfigError`] naming the file, line, column and the key
//! (`file.cfg:12:5: model.links[3]: ...`); nothing in this crate panics on any input.
//!
//! ```
//! let text = r#"
//! ifaces: { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00"]; };
//! model: { type = "snr"; links = ((0, 1, 25)); };
//! "#;
//! let config = sdmac_wmconfig::wmediumd::parse_config(text, "two.cfg").unwrap();
//! assert_eq!(config.media.len(), 1);
//! assert_eq!(config.media[0].interfaces.len(), 2);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;

pub mod libconfig;
pub mod wmediumd;

pub use libconfig::{parse, to_libconfig_string, Group, Pos, Setting, Value, ValueKind};
pub use wmediumd::parse_mac;
pub use wmediumd::{load_file, parse_config, Config, Dialect, MacAddress, MediumSpec, Model};

/// A configuration that could not be read, parsed or interpreted.
///
/// Displayed as `file:line:column: key.path: message`; the key path is left out when
/// the error is not inside a setting, and line and column when the problem concerns
/// the file as a whole (line 0, e.g. it cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The name the text was parsed under (usually its path).
    pub file: String,
    /// 1-based line; 0 when the error is about the whole file.
    pub line: u32,
    /// 1-based column, in characters (a tab counts as one); 0 with `line == 0`.
    pub column: u32,
    /// The setting the error is in, as a path: `model.links[3][2]`,
    /// `medium[1].interfaces[0]`.
    pub key_path: Option<String>,
    /// What is wrong, e.g. `expected an integer, found a float (0.1)`.
    pub message: String,
}

impl ConfigError {
    /// An error at `pos` in `file`.
    pub fn new(
        file: &str,
        pos: Pos,
        key_path: Option<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError {
            file: file.to_string(),
            line: pos.line,
            column: pos.column,
            key_path,
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.file)?;
        if self.line > 0 {
            write!(f, "{}:{}:", self.line, self.column)?;
        }
        if let Some(key) = &self.key_path {
            write!(f, " {key}:")?;
        }
        write!(f, " {}", self.message)
    }
}

impl std::error::Error for ConfigError {}
