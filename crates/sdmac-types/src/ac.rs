//! The EDCA access category.

/// An EDCA access category, lowest priority first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ac {
    /// Background.
    Bk = 0,
    /// Best effort (also the single queue of a non-QoS DCF station).
    Be = 1,
    /// Video.
    Vi = 2,
    /// Voice.
    Vo = 3,
}

impl Ac {
    /// All access categories, lowest priority first.
    pub const ALL: [Ac; 4] = [Ac::Bk, Ac::Be, Ac::Vi, Ac::Vo];

    /// The access category of a QoS TID (IEEE 802.11-2016 Table 10-1).
    pub fn from_tid(tid: u8) -> Ac {
        match tid & 7 {
            1 | 2 => Ac::Bk,
            0 | 3 => Ac::Be,
            4 | 5 => Ac::Vi,
            _ => Ac::Vo,
        }
    }

    /// Short name: `BK`, `BE`, `VI`, `VO`.
    pub fn name(self) -> &'static str {
        ["BK", "BE", "VI", "VO"][self as usize]
    }

    /// Parses `BK`/`BE`/`VI`/`VO` (any case) or `AC_BE` style names.
    pub fn parse(s: &str) -> Option<Ac> {
        let t = s.trim().to_ascii_uppercase();
        let t = t.strip_prefix("AC_").unwrap_or(&t);
        Ac::ALL.into_iter().find(|a| a.name() == t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tids_and_names() {
        let acs: Vec<Ac> = (0..8).map(Ac::from_tid).collect();
        assert_eq!(acs, [Ac::Be, Ac::Bk, Ac::Bk, Ac::Be, Ac::Vi, Ac::Vi, Ac::Vo, Ac::Vo]);
        for ac in Ac::ALL {
            assert_eq!(Ac::parse(ac.name()), Some(ac));
        }
        assert_eq!(Ac::parse(" ac_vo "), Some(Ac::Vo));
        assert_eq!(Ac::parse("be"), Some(Ac::Be));
        assert_eq!(Ac::parse("AC_XX"), None);
    }
}
