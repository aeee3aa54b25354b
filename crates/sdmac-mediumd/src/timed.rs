//! Outputs reported ahead of their time: when the medium ran ahead
//! ([`HwsimMedium::advance_quiet`](crate::hwsim_medium::HwsimMedium::advance_quiet)),
//! a TX status due at an ACK's end is known at the DATA frame's end. The daemon hands
//! such outputs to the kernel to send at their time (`Ring::queue_send_at`) instead
//! of waking for them.

use crate::hwsim_medium::Output;
use sdmac_medium::Time;

/// Moves the outputs due after `t` from `out` to `later`, one group per due time,
/// earliest first, each in the order reported; the others stay in `out`, in order.
pub fn take_later(out: &mut Vec<Output>, t: Time, later: &mut Vec<(Time, Vec<Output>)>) {
    if !out.iter().any(|o| o.due().is_some_and(|d| d > t)) {
        return;
    }
    let mut moved: Vec<(Time, Output)> = Vec::new();
    let mut keep = Vec::with_capacity(out.len());
    for o in out.drain(..) {
        match o.due() {
            Some(d) if d > t => moved.push((d, o)),
            _ => keep.push(o),
        }
    }
    *out = keep;
    // Stable: equal due times keep the order they were reported in.
    moved.sort_by_key(|(d, _)| *d);
    for (d, o) in moved {
        match later.last_mut() {
            Some((last, group)) if *last == d => group.push(o),
            _ => later.push((d, vec![o])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwsim_medium::StatusEcho;
    use sdmac_phy::Rate;

    fn status(cookie: u64, due: Time) -> Output {
        Output::TxStatus {
            transmitter: sdmac_types::MacAddress([2, 0, 0, 0, 0, 0]),
            cookie,
            acked: true,
            signal_dbm: -50,
            attempts: vec![1],
            echo: StatusEcho { rate_idx: [0, -1, -1, -1], flags: 1 },
            due,
        }
    }

    fn cookie(o: &Output) -> u64 {
        match o {
            Output::TxStatus { cookie, .. } => *cookie,
            _ => 0,
        }
    }

    #[test]
    fn later_outputs_leave_grouped_by_time_the_rest_stay_in_order() {
        let air = Output::Air { t_start: 500, freq: 2412, rate: Rate::Ofdm6, frame: vec![0xd4, 0] };
        let mut out = vec![
            status(1, 100),
            status(2, 300),
            air,
            status(3, 200),
            status(4, 300),
            status(5, 150),
        ];
        let mut later = Vec::new();
        take_later(&mut out, 150, &mut later);
        assert_eq!(
            out.iter().map(cookie).collect::<Vec<_>>(),
            [1, 0, 5],
            "due by 150, and the frame on air"
        );
        let groups: Vec<(Time, Vec<u64>)> =
            later.iter().map(|(d, g)| (*d, g.iter().map(cookie).collect())).collect();
        assert_eq!(groups, [(200, vec![3]), (300, vec![2, 4])]);
    }

    #[test]
    fn nothing_later_changes_nothing() {
        let mut out = vec![status(1, 100), status(2, 90)];
        let mut later = Vec::new();
        take_later(&mut out, 100, &mut later);
        assert_eq!(out.len(), 2);
        assert!(later.is_empty());
    }
}
