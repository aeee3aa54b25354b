//! What each request of sdmac's extension (see `sdmac_control::ext`) does to the
//! medium, and its reply. Subscriptions are the control socket's own business
//! (`control_clients`); everything else is here.

use crate::hwsim_medium::HwsimMedium;
use sdmac_control::ext::{Edca, ExtReply, ExtRequest, ExtResult, ReplyBody};
use sdmac_medium::{Ac, EdcaParams, MICROS};

/// The longest ACK timeout that may be set (ns).
pub const MAX_ACK_TIMEOUT_NS: u32 = 10_000_000;
/// The shortest ACK timeout that may be set (ns); 0 means the PHY's.
pub const MIN_ACK_TIMEOUT_NS: u32 = 1_000;

fn ac(b: u8) -> Option<Ac> {
    Ac::ALL.into_iter().find(|a| *a as u8 == b)
}

fn to_wire(p: EdcaParams) -> Edca {
    Edca {
        aifsn: p.aifsn,
        cw_min: p.cw_min as u16,
        cw_max: p.cw_max as u16,
        txop_limit_us: (p.txop_limit_ns / MICROS) as u16,
    }
}

/// Applies an extension request (other than subscribe / unsubscribe) to the medium.
pub fn apply_ext(m: &mut HwsimMedium, req: &ExtRequest) -> ExtReply {
    let reply = |result: ExtResult, body: ReplyBody| ExtReply {
        kind: req.type_byte() + 1,
        tag: req.tag(),
        result,
        body,
    };
    let no_edca = |a: u8| ReplyBody::Edca { ac: a, params: Edca::default() };
    match req {
        ExtRequest::SetEdca { station, ac: a, params, .. } => {
            let Some(id) = m.station_id(*station) else {
                return reply(ExtResult::UnknownStation, ReplyBody::None);
            };
            let Some(a) = ac(*a) else { return reply(ExtResult::BadAc, ReplyBody::None) };
            let p = EdcaParams {
                aifsn: params.aifsn,
                cw_min: params.cw_min as u32,
                cw_max: params.cw_max as u32,
                txop_limit_ns: params.txop_limit_us as u64 * MICROS,
            };
            match m.set_edca(id, a, p) {
                Ok(()) => reply(ExtResult::Ok, ReplyBody::None),
                Err(_) => reply(ExtResult::OutOfRange, ReplyBody::None),
            }
        }
        ExtRequest::GetEdca { station, ac: a, .. } => {
            let Some(id) = m.station_id(*station) else {
                return reply(ExtResult::UnknownStation, no_edca(*a));
            };
            let Some(ac) = ac(*a) else { return reply(ExtResult::BadAc, no_edca(*a)) };
            match m.edca(id, ac) {
                Some(p) => reply(ExtResult::Ok, ReplyBody::Edca { ac: *a, params: to_wire(p) }),
                None => reply(ExtResult::NoChannel, no_edca(*a)),
            }
        }
        ExtRequest::SetAckTimeout { station, ns, .. } => {
            let Some(id) = m.station_id(*station) else {
                return reply(ExtResult::UnknownStation, ReplyBody::None);
            };
            if *ns != 0 && !(MIN_ACK_TIMEOUT_NS..=MAX_ACK_TIMEOUT_NS).contains(ns) {
                return reply(ExtResult::OutOfRange, ReplyBody::None);
            }
            m.set_ack_timeout(id, (*ns != 0).then_some(*ns as u64));
            reply(ExtResult::Ok, ReplyBody::None)
        }
        ExtRequest::GetAckTimeout { station, .. } => {
            let Some(id) = m.station_id(*station) else {
                return reply(ExtResult::UnknownStation, ReplyBody::AckTimeout(0));
            };
            match m.ack_timeout(id) {
                Some(ns) => {
                    reply(ExtResult::Ok, ReplyBody::AckTimeout(ns.min(u32::MAX as u64) as u32))
                }
                None => reply(ExtResult::NoChannel, ReplyBody::AckTimeout(0)),
            }
        }
        ExtRequest::GetLink { from, to, .. } => {
            let none = ReplyBody::Link { snr_db: f64::NAN, error_prob: f64::NAN };
            let (Some(a), Some(b)) = (m.station_id(*from), m.station_id(*to)) else {
                return reply(ExtResult::UnknownStation, none);
            };
            match m.link(a, b) {
                // A link cut or absent (a deleted station, another medium) has no SNR.
                Some(o) => {
                    let snr_db = o.snr_db.unwrap_or(if o.rx_power_dbm == Some(f64::NEG_INFINITY) {
                        f64::NEG_INFINITY
                    } else {
                        f64::NAN
                    });
                    reply(
                        ExtResult::Ok,
                        ReplyBody::Link { snr_db, error_prob: o.error_prob.unwrap_or(0.0) },
                    )
                }
                None => reply(ExtResult::WrongMode, none),
            }
        }
        ExtRequest::Subscribe { .. } | ExtRequest::Unsubscribe { .. } => {
            reply(ExtResult::NotSupported, ReplyBody::None)
        }
    }
}

impl crate::control_clients::Handler for HwsimMedium {
    fn apply(&mut self, r: &sdmac_control::Request) -> crate::mininet_requests::Applied {
        crate::mininet_requests::apply(self, r)
    }

    fn apply_ext(&mut self, r: &ExtRequest) -> ExtReply {
        apply_ext(self, r)
    }
}
