//! Outputs reported ahead of their time: when the medium ran ahead
//! ([`HwsimMedium::advance_quiet`](crate::hwsim_medium::HwsimMedium::advance_quiet)),
//! a TX status due at an ACK's end is known at the DATA frame's end. The daemon hands
//! such outputs to the kernel to send at their time (`Ring::queue_send_at`) instead
//! of waking for them.

use crate::hwsim_medium::Output;
use sdmac_medium::Time;

/// Outputs held for the kernel to send at their time: earliest first, and in the order
/// reported among those due at one time. Its buffers are kept from round to round, so
/// holding and handing out allocates nothing once they have grown.
#[derive(Debug, Default)]
pub struct Later {
    /// (due time, output), sorted by due time (stable).
    held: Vec<(Time, Output)>,
    /// The outputs that stay, while `take_from` sorts them out.
    keep: Vec<Output>,
}

impl Later {
    /// Nothing held.
    pub fn new() -> Later {
        Later::default()
    }

    /// Moves the outputs due after `t` from `out` to the held ones; the others stay
    /// in `out`, in order.
    pub fn take_from(&mut self, out: &mut Vec<Output>, t: Time) {
        if !out.iter().any(|o| o.due().is_some_and(|d| d > t)) {
            return;
        }
        self.keep.clear();
        for o in out.drain(..) {
            match o.due() {
                Some(d) if d > t => {
                    // After every one due by then: equal due times keep their order.
                    let at = self.held.partition_point(|(x, _)| *x <= d);
                    self.held.insert(at, (d, o));
                }
                _ => self.keep.push(o),
            }
        }
        std::mem::swap(out, &mut self.keep);
    }

    /// Outputs held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The due time of the earliest group and its outputs, taken out (None when
    /// nothing is held).
    pub fn next_group(&mut self) -> Option<(Time, impl Iterator<Item = Output> + '_)> {
        let due = self.held.first()?.0;
        let n = self.held.partition_point(|(x, _)| *x <= due);
        Some((due, self.held.drain(..n).map(|(_, o)| o)))
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
            attempts: vec![1].into(),
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
        let mut later = Later::new();
        later.take_from(&mut out, 150);
        assert_eq!(
            out.iter().map(cookie).collect::<Vec<_>>(),
            [1, 0, 5],
            "due by 150, and the frame on air"
        );
        let mut groups: Vec<(Time, Vec<u64>)> = Vec::new();
        while let Some((d, g)) = later.next_group() {
            groups.push((d, g.map(|o| cookie(&o)).collect()));
        }
        assert!(later.is_empty());
        assert_eq!(groups, [(200, vec![3]), (300, vec![2, 4])]);
    }

    #[test]
    fn nothing_later_changes_nothing() {
        let mut out = vec![status(1, 100), status(2, 90)];
        let mut later = Later::new();
        later.take_from(&mut out, 100);
        assert_eq!(out.len(), 2);
        assert!(later.is_empty());
    }
}
