//! The guard interval and the request-path jitter measurement it comes from.

use super::control::CONTROL_PAYLOAD;
use super::error::TdmaError;
use crate::exchange::{confirmation_of, wait_until};
use crate::retransmit::CONFIRMATION_LIMIT;
use sdmac_api::{
    Ac, Backend, Body, Confirmation, Interface, MacAddress, Rate, RateSeries, Span, TxAttrs,
};
use std::fmt;

/// The guard interval and where it comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// Spread of the backend's request path (t_start − t1) over a probe burst.
    pub jitter: Span,
    /// Error of the shared time base (zero for the medium's clock on emu).
    pub sync_error: Span,
}

impl Guard {
    /// Jitter plus synchronisation error.
    pub fn total(&self) -> Span {
        self.jitter + self.sync_error
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.1} µs = request-path jitter {:.1} µs + synchronisation error {:.1} µs",
            self.total().as_us_f64(),
            self.jitter.as_us_f64(),
            self.sync_error.as_us_f64()
        )
    }
}

/// The request path measured by [`measure_jitter`].
#[derive(Clone, Debug, PartialEq)]
pub struct JitterReport {
    /// t_start − t1 of every probe.
    pub latencies: Vec<Span>,
    /// The shortest.
    pub min: Span,
    /// The longest.
    pub max: Span,
}

impl JitterReport {
    /// The spread, max − min: the jitter the guard must absorb.
    pub fn spread(&self) -> Span {
        self.max - self.min
    }
}

/// Measures the request path's jitter: `probes` one-try frames to `dst` at `rate`,
/// one at a time, each `gap` after the previous outcome (long enough for the medium
/// to be idle and any post-backoff over), and the spread of t_start − t1 from their
/// confirmations.
pub fn measure_jitter<B: Backend>(
    iface: &mut Interface<B>,
    dst: MacAddress,
    rate: Rate,
    probes: u32,
    gap: Span,
) -> Result<JitterReport, TdmaError> {
    if probes < 2 {
        return Err(TdmaError::Measurement(format!(
            "{probes} probes cannot show a spread (at least 2)"
        )));
    }
    let attrs = TxAttrs {
        dst: Some(dst),
        rates: Some(RateSeries::single(rate, 1)),
        no_ack: false,
        timestamps: true,
        not_before: None,
        not_after: None,
    };
    let mut lat = Vec::with_capacity(probes as usize);
    let mut next = iface.now();
    for k in 0..probes {
        let _not_ours = wait_until(iface, next)?;
        let id = (1 << 61) + u64::from(k);
        iface.data_req(id, Body::Payload(&[0u8; CONTROL_PAYLOAD]), Ac::Be, &attrs)?;
        let c = read_con(iface, id)?;
        if c.ts.t1.is_zero() || c.ts.t_start.is_zero() {
            return Err(TdmaError::Measurement(
                "the backend recorded no t1 or t_start for a probe".into(),
            ));
        }
        lat.push(c.ts.t_start.saturating_since(c.ts.t1));
        next = iface.now() + gap;
    }
    let min = *lat.iter().min().expect("probes");
    let max = *lat.iter().max().expect("probes");
    Ok(JitterReport { latencies: lat, min, max })
}

pub(super) fn read_con<B: Backend>(
    iface: &mut Interface<B>,
    id: u64,
) -> Result<Confirmation, TdmaError> {
    confirmation_of(iface, id, CONFIRMATION_LIMIT)?.ok_or(TdmaError::NoConfirmation { id })
}
