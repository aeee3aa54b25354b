//! Movement of a path-loss medium's stations: every `interval_ns` each station that
//! has a direction moves by it (a displacement per step, in metres, as `directions`
//! means in wmediumd and yawmd: both add the direction to the position once per
//! interval — wmediumd every 3 s, yawmd every `move_interval` s).
//!
//! Steps fall at k × interval on the daemon's clock (k = 1, 2, …: the first one
//! interval after the daemon starts, as in wmediumd; yawmd waits 20 s before its first).
//! The medium never reads a clock: [`StepClock`] tells which steps are due at a time it
//! is given.

use crate::address::Mac;
use sdmac_medium::Time;

/// How a medium's stations move.
#[derive(Clone, Debug, PartialEq)]
pub struct Movement {
    /// Time between steps, ns (> 0).
    pub interval_ns: Time,
    /// Displacement per step (m) of each interface address that moves.
    pub directions: Vec<(Mac, [f64; 3])>,
}

impl Movement {
    /// The direction of the radio whose addresses `is` recognises, if it moves.
    pub fn direction_of(&self, is: impl Fn(&Mac) -> bool) -> Option<[f64; 3]> {
        self.directions
            .iter()
            .find(|(a, _)| is(a))
            .map(|d| d.1)
            .filter(|d| d.iter().any(|x| *x != 0.0))
    }
}

/// When a medium's movement steps fall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepClock {
    interval_ns: Time,
    next_ns: Time,
}

impl StepClock {
    /// Steps every `interval_ns` (at least 1 ns), the first at `interval_ns`.
    pub fn new(interval_ns: Time) -> StepClock {
        let interval_ns = interval_ns.max(1);
        StepClock { interval_ns, next_ns: interval_ns }
    }

    /// The time of the next step.
    pub fn next(&self) -> Time {
        self.next_ns
    }

    /// The time of the next step if it is due at `now`.
    pub fn due(&self, now: Time) -> Option<Time> {
        (self.next_ns <= now).then_some(self.next_ns)
    }

    /// The next step has been taken.
    pub fn step(&mut self) {
        self.next_ns = self.next_ns.saturating_add(self.interval_ns);
    }
}

/// `pos` moved by one step of `direction`.
pub fn moved(pos: [f64; 3], direction: [f64; 3]) -> [f64; 3] {
    [pos[0] + direction[0], pos[1] + direction[1], pos[2] + direction[2]]
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;

    #[test]
    fn steps_fall_at_multiples_of_the_interval() {
        let mut c = StepClock::new(3 * S);
        assert_eq!(c.next(), 3 * S);
        assert_eq!(c.due(3 * S - 1), None);
        assert_eq!(c.due(3 * S), Some(3 * S));
        c.step();
        assert_eq!(c.due(5 * S), None);
        assert_eq!(c.due(7 * S), Some(6 * S));
        assert_eq!(StepClock::new(0).next(), 1);
    }

    #[test]
    fn a_direction_is_a_displacement_per_step() {
        let m = Movement {
            interval_ns: 3 * S,
            directions: vec![
                (Mac::new([2, 0, 0, 0, 0, 0]), [10.0, 0.0, 0.0]),
                (Mac::new([2, 0, 0, 0, 1, 0]), [0.0; 3]),
            ],
        };
        let d = m.direction_of(|a| *a == Mac::new([2, 0, 0, 0, 0, 0])).unwrap();
        assert_eq!(moved(moved([0.0, 5.0, 1.0], d), d), [20.0, 5.0, 1.0]);
        // A zero direction does not move.
        assert_eq!(m.direction_of(|a| *a == Mac::new([2, 0, 0, 0, 1, 0])), None);
        assert_eq!(m.direction_of(|a| *a == Mac::new([2, 0, 0, 0, 2, 0])), None);
    }
}
