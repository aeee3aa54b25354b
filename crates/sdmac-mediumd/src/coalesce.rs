//! Holding a round's outputs back so that they leave with the next ones
//! (`--coalesce-us`): a unicast exchange has two outputs, the delivery at the DATA's
//! end and the TX status at the ACK's end, SIFS + ACK (about 44 µs at 54 Mb/s) later.
//! Sent apart, they cost two wake-ups and two sends; held together, one of each, and
//! the receivers get the frame up to the window later — never later than that.
//!
//! The rule: outputs due now are held while the medium's next output comes within
//! the window of the moment the first of them was held. A window of 0 sends every
//! output at its own time.

/// When to send what the medium has put out.
#[derive(Clone, Debug, Default)]
pub struct Coalesce {
    window_ns: u64,
    held_since: Option<u64>,
}

impl Coalesce {
    /// Outputs wait at most `window_ns` for the next ones.
    pub fn new(window_ns: u64) -> Coalesce {
        Coalesce { window_ns, held_since: None }
    }

    /// At time `t`, with outputs `pending` (or not) and the medium's next output at
    /// `next`: whether to send them now. When this says no, the daemon waits for
    /// `next` (or a frame from the kernel) and asks again.
    pub fn send_now(&mut self, t: u64, pending: bool, next: Option<u64>) -> bool {
        if !pending {
            self.held_since = None;
            return false;
        }
        let since = *self.held_since.get_or_insert(t);
        let hold = self.window_ns > 0 && next.is_some_and(|n| n <= since.saturating_add(self.window_ns));
        if !hold {
            self.held_since = None;
        }
        !hold
    }

    /// Since when outputs are held, if they are.
    pub fn held_since(&self) -> Option<u64> {
        self.held_since
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_zero_sends_at_once() {
        let mut c = Coalesce::new(0);
        assert!(c.send_now(100, true, Some(101)));
        assert!(!c.send_now(100, false, Some(101)));
    }

    #[test]
    fn delivery_waits_for_the_status_within_the_window() {
        let mut c = Coalesce::new(50_000);
        // DATA end at 1 ms: the status is due 44 µs later.
        assert!(!c.send_now(1_000_000, true, Some(1_044_000)));
        assert_eq!(c.held_since(), Some(1_000_000));
        // At the ACK's end both go; the next exchange is far away.
        assert!(c.send_now(1_044_000, true, Some(2_000_000)));
        assert_eq!(c.held_since(), None);
    }

    #[test]
    fn the_window_counts_from_the_first_held_output() {
        let mut c = Coalesce::new(50_000);
        assert!(!c.send_now(0, true, Some(30_000)));
        // Another output 30 µs on would take the wait past 50 µs from the first.
        assert!(c.send_now(30_000, true, Some(60_000)));
        // A fresh hold starts from now.
        assert!(!c.send_now(60_000, true, Some(100_000)));
        assert_eq!(c.held_since(), Some(60_000));
    }

    #[test]
    fn nothing_next_means_send() {
        let mut c = Coalesce::new(50_000);
        assert!(c.send_now(5, true, None));
        assert!(c.send_now(5, true, Some(50_006)));
    }
}
