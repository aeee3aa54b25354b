//! Holding outputs back so that they leave with the next ones (`--coalesce-us`): a
//! unicast exchange has two outputs, the delivery at the DATA's end and the TX status
//! at the ACK's end, SIFS + ACK (about 44 µs at 54 Mb/s) later. Sent apart, they cost
//! two wake-ups and two sends; held together, one of each, and the receivers get the
//! frame up to the window later — never later than that.
//!
//! The rule: an output may wait until the window has passed since it was due. The
//! daemon does not wake at an output's due time but at the window's end after it
//! ([`Coalesce::wake_at`]), and sends then what has come due by that time; it sends
//! earlier when it is awake anyway (a frame came) and the medium's next output lies
//! beyond the window. A window of 0 sends every output at its own time.

use crate::hwsim_medium::Output;
use sdmac_medium::Time;

/// When to send what the medium has put out.
#[derive(Clone, Debug, Default)]
pub struct Coalesce {
    window_ns: u64,
    /// Due time of the earliest output held.
    held_due: Option<Time>,
}

impl Coalesce {
    /// Outputs wait at most `window_ns` past their due time.
    pub fn new(window_ns: u64) -> Coalesce {
        Coalesce { window_ns, held_due: None }
    }

    /// At time `t`, with the earliest due time of the outputs waiting (`first_due`,
    /// None when there are none) and the medium's next output at `next`: whether to
    /// send them now.
    pub fn send_now(&mut self, t: Time, first_due: Option<Time>, next: Option<Time>) -> bool {
        let Some(due) = first_due else {
            self.held_due = None;
            return false;
        };
        let limit = due.saturating_add(self.window_ns);
        let send = self.window_ns == 0 || t >= limit || next.is_none_or(|n| n > limit);
        self.held_due = if send { None } else { Some(due) };
        send
    }

    /// When the daemon next has to be awake, with the medium's next output at `next`:
    /// the window's end after the earliest output, held or still to come.
    pub fn wake_at(&self, next: Option<Time>) -> Option<Time> {
        let first = match (self.held_due, next) {
            (Some(h), Some(n)) => Some(h.min(n)),
            (h, n) => h.or(n),
        };
        first.map(|f| f.saturating_add(self.window_ns))
    }

    /// Due time of the earliest output held, if one is.
    pub fn held_due(&self) -> Option<Time> {
        self.held_due
    }
}

/// The earliest due time of the outputs for the kernel in `out` (frames on air for a
/// capture have none).
pub fn first_due(out: &[Output]) -> Option<Time> {
    out.iter().filter_map(Output::due).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_zero_sends_at_once() {
        let mut c = Coalesce::new(0);
        assert_eq!(c.wake_at(Some(101)), Some(101));
        assert!(c.send_now(101, Some(101), Some(150)));
        assert!(!c.send_now(101, None, Some(150)));
    }

    #[test]
    fn delivery_and_status_leave_at_the_window_end_after_the_delivery() {
        let mut c = Coalesce::new(50_000);
        // DATA end at 1 ms: the daemon sleeps through it, to 50 µs later.
        assert_eq!(c.wake_at(Some(1_000_000)), Some(1_050_000));
        // By then the status (due 44 µs after the delivery) is out too; both go.
        assert!(c.send_now(1_050_000, Some(1_000_000), Some(2_000_000)));
        assert_eq!(c.held_due(), None);
    }

    #[test]
    fn woken_early_holds_while_the_next_output_is_within_the_window() {
        let mut c = Coalesce::new(50_000);
        // A frame woke the daemon 10 µs after a DATA end; the status is due at +44 µs.
        assert!(!c.send_now(1_010_000, Some(1_000_000), Some(1_044_000)));
        assert_eq!(c.held_due(), Some(1_000_000));
        assert_eq!(
            c.wake_at(Some(1_044_000)),
            Some(1_050_000),
            "the window counts from the held output's due time"
        );
        // Woken again at +20 µs with nothing more due within the window: send.
        assert!(c.send_now(1_020_000, Some(1_000_000), Some(1_300_000)));
        assert_eq!(c.wake_at(Some(1_300_000)), Some(1_350_000));
    }

    #[test]
    fn nothing_next_means_send() {
        let mut c = Coalesce::new(50_000);
        assert!(c.send_now(5, Some(5), None));
        assert!(c.send_now(5, Some(5), Some(50_006)));
        assert_eq!(c.wake_at(None), None);
    }

    #[test]
    fn never_later_than_the_window() {
        let mut c = Coalesce::new(50_000);
        // Outputs keep coming within the window of the next: still sent at the limit.
        assert!(!c.send_now(10_000, Some(0), Some(40_000)));
        assert!(c.send_now(50_000, Some(0), Some(60_000)));
    }
}
