//! Signal-to-PER tables: the `-x` file of wmediumd and Mininet-WiFi.
//!
//! # File format
//!
//! Plain text, one row per received signal level:
//!
//! ```text
//! # RSSI vs MCS vs PER table, ... assuming No is -91dBm.
//! # bitrate  1Mbps  2Mbps  5.5Mbps  11Mbps  6Mbps  ...  54Mbps
//! # RSSI [dBm]  0  1  2  3  4  ...  11
//! -100  1.00E+00  1.00E+00  ...
//! -99  1.00E+00  1.00E+00  ...
//! ```
//!
//! - `#` starts a comment that runs to the end of the line; blank lines are ignored.
//!   A comment line starting `# bitrate` names the columns (kept as [`PerTable::labels`]).
//! - A data row is an integer signal level in dBm followed by one PER per column,
//!   separated by any whitespace (the real files mix tabs, spaces and empty
//!   tab-separated fields).
//! - Rows ascend in steps of exactly 1 dB, starting at the lowest signal.
//! - The files Mininet-WiFi ships (`mn_wifi/data/signal_table_ieee80211*`) have
//!   12 columns (`ax`: the legacy rates in hwsim's index order 1, 2, 5.5, 11, 6, …,
//!   54 Mb/s — [`crate::LEGACY_RATES`]) or 16 columns (`n_gi20`, `n_gi40`, `n_sgi20`,
//!   `n_sgi40`: HT MCS 0–15 for one guard interval and width).
//!
//! # What wmediumd does, and what this parser does
//!
//! Facts from wmediumd's `per.c` (upstream and the Mininet-WiFi fork), which reads the
//! file as a stream of whitespace-separated tokens with `fscanf`:
//! - a token starting with `#` skips the rest of its line; every other token in row
//!   position is read with `atoi` as the signal, followed by exactly 12 `%f` values;
//! - a row is stored at index (signal − lowest signal), so rows must ascend from the
//!   lowest signal in 1 dB steps (other orders write out of place or out of bounds);
//! - lookup: `idx = (int)(snr + NOISE_LEVEL − lowest signal)` with `NOISE_LEVEL` =
//!   −91 dBm, i.e. the signal truncated to whole dB; `idx < 0` → PER 1.0;
//!   `idx ≥ rows` → PER 0.0; a rate index ≥ 12 is replaced by 11 with a warning;
//! - values are used as read, so a PER above 1 means certain loss.
//!
//! Differences here, each for a reason:
//! - Rows are read per line, so a row with the wrong number of values is an error that
//!   names its line. (wmediumd silently misreads such files: in the 16-column 11n
//!   tables it takes a row's 13th value as the next row's signal level, `atoi("1.00E+00")`
//!   = 1 dBm, and stores that row far outside its buffer.) Any number of columns is
//!   accepted as long as every row has the same.
//! - A signal level that is not an integer, rows that do not ascend in 1 dB steps, a
//!   value that is not a number, negative or not finite are errors naming file, line
//!   and column.
//! - A PER above 1 is clamped to 1 (what wmediumd effectively does) and recorded as a
//!   warning ([`PerTable::warnings`]): the 11n files contain `529` where `0.529` was
//!   meant.
//! - Between rows the nearest lower row is used (floor, as wmediumd does for signals
//!   inside the table); below the first row the PER is 1.0 even within 1 dB of it
//!   (wmediumd truncates toward zero there and still uses the first row); at or beyond
//!   one dB above the last row it is 0.0, as in wmediumd — whatever the last row says.
//!   The column index is clamped to the last column, as in wmediumd.
//!
//! # Use by the medium
//!
//! A table gives a PER per frame at a signal level, for whatever frame length the
//! measurements used; wmediumd applies it to every frame regardless of length. The
//! medium can do exactly that with [`PerTable::per_at`]. Through
//! [`super::ErrorModel::chunk_success`] the table is used as a model instead: the SINR
//! is taken as an SNR, the signal as noise + SNR with [`PerTable::noise_dbm`] (default
//! −91 dBm, wmediumd's `NOISE_LEVEL` and the noise the files assume), and the row's
//! PER is taken to hold for frames of [`PerTable::reference_len_bytes`] (default
//! 1500 B) and spread evenly over their bits: n bits succeed with probability
//! (1 − PER)^(n / (8·reference length)). That is monotone in n and exact for n = 0;
//! it is monotone in the SINR only as far as the table's columns are (the 11n files'
//! MCS 15 column is not).

use crate::phy::LEGACY_RATES;
use crate::rate::Rate;
use core::fmt;

/// wmediumd's `NOISE_LEVEL`: the noise floor the `-x` tables assume, dBm.
pub const WMEDIUMD_NOISE_DBM: f64 = -91.0;

/// Default frame length a table's PER values are taken to refer to, bytes.
pub const DEFAULT_REFERENCE_LEN_BYTES: u32 = 1500;

/// How a table's columns map to rates.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PerTableLayout {
    /// Column i is [`LEGACY_RATES`]\[i\] (hwsim's legacy rate index): 12-column tables.
    Legacy,
    /// Column i is HT MCS i (tables with any other number of columns, e.g. the 16
    /// columns MCS 0–15 of Mininet-WiFi's 11n tables).
    Mcs,
}

/// A parsed signal-to-PER table (see the module documentation for the format).
#[derive(Clone, Debug, PartialEq)]
pub struct PerTable {
    name: String,
    first_signal_dbm: i32,
    columns: usize,
    /// Row-major: `per[row * columns + column]`.
    per: Vec<f64>,
    labels: Vec<String>,
    warnings: Vec<PerTableWarning>,
    layout: PerTableLayout,
    noise_dbm: f64,
    reference_len_bytes: u32,
}

/// Something suspicious the parser accepted (the value it used is stated).
#[derive(Clone, Debug, PartialEq)]
pub struct PerTableWarning {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column of the PER value (the signal is column 0).
    pub column: usize,
    /// The value as written.
    pub value: f64,
    /// What is wrong and what was used instead.
    pub message: String,
}

impl fmt::Display for PerTableWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

/// A table that could not be parsed: which file, which line, what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct PerTableError {
    /// The name the table was parsed under (usually its path).
    pub file: String,
    /// 1-based line number; 0 when the problem is the file as a whole.
    pub line: usize,
    /// What is wrong.
    pub kind: PerTableErrorKind,
}

/// What is wrong with a PER table.
#[derive(Clone, Debug, PartialEq)]
pub enum PerTableErrorKind {
    /// The first field of a data row is not an integer signal level in dBm.
    BadSignal {
        /// The field as written.
        token: String,
    },
    /// A PER field is not a finite number.
    BadValue {
        /// 1-based column of the PER value.
        column: usize,
        /// The field as written.
        token: String,
    },
    /// A PER value is negative.
    NegativeValue {
        /// 1-based column of the PER value.
        column: usize,
        /// The value.
        value: f64,
    },
    /// A data row has a signal level but no PER values.
    NoValues,
    /// A data row has a different number of PER values than the first one.
    ColumnCount {
        /// Columns of the first data row.
        expected: usize,
        /// Columns of this row.
        found: usize,
        /// Line of the first data row.
        first_line: usize,
    },
    /// A row's signal is not one dB above the previous row's.
    SignalOrder {
        /// The previous row's signal level.
        previous: i32,
        /// This row's signal level.
        found: i32,
    },
    /// The file has no data rows.
    NoRows,
}

impl fmt::Display for PerTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: ", self.file)?;
        } else {
            write!(f, "{}:{}: ", self.file, self.line)?;
        }
        match &self.kind {
            PerTableErrorKind::BadSignal { token } => {
                write!(
                    f,
                    "signal level {token:?} is not an integer (expected `signal_dBm PER PER ...`)"
                )
            }
            PerTableErrorKind::BadValue { column, token } => {
                write!(f, "PER value {column} is {token:?}, not a finite number")
            }
            PerTableErrorKind::NegativeValue { column, value } => {
                write!(f, "PER value {column} is {value}, below 0")
            }
            PerTableErrorKind::NoValues => write!(f, "row has a signal level but no PER values"),
            PerTableErrorKind::ColumnCount { expected, found, first_line } => {
                write!(f, "row has {found} PER values, but the first row (line {first_line}) has {expected}")
            }
            PerTableErrorKind::SignalOrder { previous, found } => write!(
                f,
                "signal {found} dBm does not follow {previous} dBm: rows must ascend in 1 dB steps \
                 (expected {})",
                previous.saturating_add(1)
            ),
            PerTableErrorKind::NoRows => {
                write!(f, "no data rows (expected lines `signal_dBm PER PER ...`)")
            }
        }
    }
}

impl std::error::Error for PerTableError {}

impl PerTable {
    /// Parses a table; `name` (usually the file's path) is only used in errors and
    /// [`PerTable::name`].
    pub fn parse(text: &str, name: &str) -> Result<PerTable, PerTableError> {
        let err = |line: usize, kind| PerTableError { file: name.to_string(), line, kind };
        let mut first: Option<(i32, usize)> = None; // (signal, line) of the first row
        let mut previous: Option<i32> = None;
        let mut columns = 0usize;
        let mut per = Vec::new();
        let mut labels = Vec::new();
        let mut warnings = Vec::new();

        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let (data, comment) = match raw.find('#') {
                Some(p) => (&raw[..p], Some(&raw[p + 1..])),
                None => (raw, None),
            };
            if let Some(c) = comment {
                let mut words = c.split_whitespace();
                if data.trim().is_empty()
                    && labels.is_empty()
                    && words.next().is_some_and(|w| w.eq_ignore_ascii_case("bitrate"))
                {
                    labels = words.map(str::to_string).collect();
                }
            }
            let mut fields = data.split_whitespace();
            let Some(sig_tok) = fields.next() else { continue };
            let signal = parse_signal(sig_tok).ok_or_else(|| {
                err(line_no, PerTableErrorKind::BadSignal { token: sig_tok.to_string() })
            })?;
            let start = per.len();
            for (j, tok) in fields.enumerate() {
                let column = j + 1;
                let v: f64 = match tok.parse::<f64>() {
                    Ok(v) if v.is_finite() => v,
                    _ => {
                        return Err(err(
                            line_no,
                            PerTableErrorKind::BadValue { column, token: tok.to_string() },
                        ))
                    }
                };
                if v < 0.0 {
                    return Err(err(
                        line_no,
                        PerTableErrorKind::NegativeValue { column, value: v },
                    ));
                }
                if v > 1.0 {
                    warnings.push(PerTableWarning {
                        line: line_no,
                        column,
                        value: v,
                        message: format!(
                            "PER {tok} is above 1; used as 1.0 (certain loss, as in wmediumd)"
                        ),
                    });
                }
                per.push(v.min(1.0));
            }
            let found = per.len() - start;
            if found == 0 {
                return Err(err(line_no, PerTableErrorKind::NoValues));
            }
            match first {
                None => {
                    first = Some((signal, line_no));
                    columns = found;
                }
                Some((_, first_line)) => {
                    if found != columns {
                        return Err(err(
                            line_no,
                            PerTableErrorKind::ColumnCount { expected: columns, found, first_line },
                        ));
                    }
                }
            }
            if let Some(prev) = previous {
                if prev.checked_add(1) != Some(signal) {
                    return Err(err(
                        line_no,
                        PerTableErrorKind::SignalOrder { previous: prev, found: signal },
                    ));
                }
            }
            previous = Some(signal);
        }

        let Some((first_signal_dbm, _)) = first else {
            return Err(err(0, PerTableErrorKind::NoRows));
        };
        let layout = if columns == LEGACY_RATES.len() {
            PerTableLayout::Legacy
        } else {
            PerTableLayout::Mcs
        };
        Ok(PerTable {
            name: name.to_string(),
            first_signal_dbm,
            columns,
            per,
            labels,
            warnings,
            layout,
            noise_dbm: WMEDIUMD_NOISE_DBM,
            reference_len_bytes: DEFAULT_REFERENCE_LEN_BYTES,
        })
    }

    /// The name the table was parsed under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of PER columns (rates).
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Number of rows (signal levels).
    pub fn rows(&self) -> usize {
        self.per.len() / self.columns
    }

    /// Signal level of the first (lowest) row, dBm.
    pub fn min_signal_dbm(&self) -> i32 {
        self.first_signal_dbm
    }

    /// Signal level of the last (highest) row, dBm.
    pub fn max_signal_dbm(&self) -> i32 {
        self.first_signal_dbm + self.rows() as i32 - 1
    }

    /// Column names from a `# bitrate …` comment line (empty if there is none).
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Values the parser accepted with a correction (e.g. PER above 1).
    pub fn warnings(&self) -> &[PerTableWarning] {
        &self.warnings
    }

    /// How columns map to rates (inferred from the column count: 12 → legacy).
    pub fn layout(&self) -> PerTableLayout {
        self.layout
    }

    /// The same table with another column layout.
    pub fn with_layout(mut self, layout: PerTableLayout) -> PerTable {
        self.layout = layout;
        self
    }

    /// Noise floor used to turn an SNR into a signal level in
    /// [`super::ErrorModel::chunk_success`], dBm (default −91).
    pub fn noise_dbm(&self) -> f64 {
        self.noise_dbm
    }

    /// The same table with another noise floor.
    pub fn with_noise_dbm(mut self, noise_dbm: f64) -> PerTable {
        self.noise_dbm = noise_dbm;
        self
    }

    /// Frame length the PER values are taken to refer to in
    /// [`super::ErrorModel::chunk_success`], bytes (default 1500).
    pub fn reference_len_bytes(&self) -> u32 {
        self.reference_len_bytes
    }

    /// The same table with another reference length (at least 1 byte).
    pub fn with_reference_len_bytes(mut self, len: u32) -> PerTable {
        self.reference_len_bytes = len.max(1);
        self
    }

    /// The PER of the row at `row` (0 = lowest signal) and `column`, if both exist.
    pub fn value(&self, row: usize, column: usize) -> Option<f64> {
        if column >= self.columns || row >= self.rows() {
            return None;
        }
        Some(self.per[row * self.columns + column])
    }

    /// PER at a received signal level for the rate in column `rate_index` (clamped to
    /// the last column): the nearest lower row; 1.0 below the first row (and for NaN);
    /// 0.0 from one dB above the last row on.
    pub fn per_at(&self, signal_dbm: f64, rate_index: usize) -> f64 {
        let column = rate_index.min(self.columns - 1);
        let offset = signal_dbm - self.first_signal_dbm as f64;
        if offset.is_nan() || offset < 0.0 {
            return 1.0;
        }
        let row = offset.floor();
        if row >= self.rows() as f64 {
            return 0.0;
        }
        self.per[row as usize * self.columns + column]
    }

    /// The column holding `rate`, if the table has one.
    ///
    /// Legacy layout: the rate's index in [`LEGACY_RATES`]; HT rates use the legacy
    /// rate with the same modulation and coding ([`Rate::non_ht_reference`]).
    /// MCS layout: HT MCS m → column m; legacy OFDM rates → the single-stream MCS with
    /// the same modulation and coding (6 → 0, 12 → 1, 18 → 2, 24 → 3, 36 → 4, 48 → 5,
    /// 54 → 6), and 9 Mb/s (BPSK 3/4, no MCS) → MCS 1 (QPSK 1/2, which needs a little
    /// more SNR); DSSS rates have no column. Custom rates never have one.
    pub fn column_for(&self, rate: Rate) -> Option<usize> {
        let col = match self.layout {
            PerTableLayout::Legacy => {
                LEGACY_RATES.iter().position(|r| *r == rate.non_ht_reference())?
            }
            PerTableLayout::Mcs => match rate {
                Rate::Ht { mcs, .. } => (mcs % 8) as usize,
                Rate::Vht { mcs, .. } => mcs as usize,
                Rate::Ofdm6 => 0,
                Rate::Ofdm9 | Rate::Ofdm12 => 1,
                Rate::Ofdm18 => 2,
                Rate::Ofdm24 => 3,
                Rate::Ofdm36 => 4,
                Rate::Ofdm48 => 5,
                Rate::Ofdm54 => 6,
                _ => return None,
            },
        };
        (col < self.columns).then_some(col)
    }

    /// Probability that `nbits` bits at `rate` succeed at a linear SNR (see "Use by
    /// the medium" in the module documentation); `None` if the table has no column for
    /// `rate`.
    pub fn chunk_success(&self, rate: Rate, snr: f64, nbits: u64) -> Option<f64> {
        let column = self.column_for(rate)?;
        if nbits == 0 {
            return Some(1.0);
        }
        let signal = self.noise_dbm + crate::units::ratio_to_db(snr.max(0.0));
        let per = self.per_at(signal, column);
        if per <= 0.0 {
            return Some(1.0);
        }
        if per >= 1.0 {
            return Some(0.0);
        }
        let frames = nbits as f64 / (8.0 * self.reference_len_bytes as f64);
        Some((frames * (-per).ln_1p()).exp())
    }
}

/// An integer signal level (`-95`, `+3`, or `-95.0`).
fn parse_signal(tok: &str) -> Option<i32> {
    if let Ok(v) = tok.parse::<i32>() {
        return Some(v);
    }
    let v: f64 = tok.parse().ok()?;
    (v.is_finite() && v.fract() == 0.0 && v.abs() < 1e6).then_some(v as i32)
}
