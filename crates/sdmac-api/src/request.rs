//! What `data_req` takes: the packet and its per-packet attributes.

use sdmac_types::MacAddress;
use sdmac_types::RateSeries;
use sdmac_types::Time;

/// Largest MSDU payload (bytes) a `data_req` accepts (IEEE 802.11 MSDU limit).
pub const MAX_PAYLOAD: usize = 2304;

/// Largest caller id; ids above are reserved for frames the backend generates.
pub const MAX_ID: u64 = (1 << 62) - 1;

/// The packet of a `data_req`.
#[derive(Copy, Clone, Debug)]
pub enum Body<'a> {
    /// An MSDU payload: the backend builds the 802.11 header (and LLC/SNAP).
    Payload(&'a [u8]),
    /// A whole 802.11 MPDU without FCS, sent as given (the FCS is added on air).
    Frame(&'a [u8]),
}

impl Body<'_> {
    /// The bytes given.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Body::Payload(b) | Body::Frame(b) => b,
        }
    }
}

/// Per-packet attributes of a `data_req`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TxAttrs {
    /// Destination (receiver address). For `Body::Frame`, `None` means the frame's
    /// address 1; for a payload, `None` means the BSSID (the AP, from a station).
    pub dst: Option<MacAddress>,
    /// Rate series: up to four (rate, tries) entries. One entry with one try is a
    /// confirmed one-shot; more tries make it multi-shot. `None`: the adapter's
    /// default series.
    pub rates: Option<RateSeries>,
    /// Send without expecting an ACK (the confirmation then says `Sent`).
    pub no_ack: bool,
    /// Record timestamps (t1..t9) for this packet.
    pub timestamps: bool,
    /// Hand the packet to channel access (its AC queue, t4) at this time on the
    /// backend's clock, not before; `None`: as soon as the request arrives. A request
    /// that reaches the device after this time is handed over at once. Only backends
    /// whose [`Backend::timed_sends`](crate::Backend::timed_sends) is true take it.
    pub not_before: Option<Time>,
    /// Drop the packet, unsent, with `Dropped(Late)` if it would be handed to channel
    /// access after this time on the backend's clock. Only backends whose
    /// [`Backend::timed_sends`](crate::Backend::timed_sends) is true take it.
    pub not_after: Option<Time>,
}

impl Default for TxAttrs {
    fn default() -> Self {
        TxAttrs {
            dst: None,
            rates: None,
            no_ack: false,
            timestamps: true,
            not_before: None,
            not_after: None,
        }
    }
}

impl TxAttrs {
    /// Whether the request names a time (`not_before` or `not_after`).
    pub fn is_timed(&self) -> bool {
        self.not_before.is_some() || self.not_after.is_some()
    }

    /// Attributes for a confirmed one-shot: one try at `rate` to `dst`.
    pub fn one_shot(dst: MacAddress, rate: sdmac_phy::Rate) -> TxAttrs {
        TxAttrs { dst: Some(dst), rates: Some(RateSeries::single(rate, 1)), ..TxAttrs::default() }
    }
}
