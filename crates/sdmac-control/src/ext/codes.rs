//! The one-byte codes of the extension: a reply's result, and a truth record's
//! outcome and cause, each declared once with its byte and its name.

use std::fmt;

/// Declares a `#[repr(u8)]` enum of wire codes, each variant with its byte and its
/// short name, and gives it `from_u8` (the byte back to its variant) and `name`.
macro_rules! byte_enum {
    (
        $(#[$meta:meta])*
        $name:ident, name: $name_doc:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $label:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// From its byte (None: no variant has it).
            pub fn from_u8(b: u8) -> Option<$name> {
                match b {
                    $( $value => Some($name::$variant), )*
                    _ => None,
                }
            }

            #[doc = $name_doc]
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $label, )*
                }
            }
        }
    };
}

byte_enum! {
    /// Result byte of an extension reply.
    ExtResult, name: "Short name." {
        /// Done.
        Ok = 0 => "ok",
        /// No station has this address.
        UnknownStation = 1 => "unknown station",
        /// The AC byte is not 0 to 3.
        BadAc = 2 => "bad access category",
        /// A value is out of its range (see the request).
        OutOfRange = 3 => "value out of range",
        /// The request does not apply to the link model (links follow positions).
        WrongMode = 4 => "not in this link model",
        /// The station has not joined a channel yet and nothing was set: the value
        /// depends on the band it will use.
        NoChannel = 5 => "station on no channel yet",
        /// This daemon cannot do it (e.g. with `--threads`).
        NotSupported = 6 => "not supported by this daemon",
        /// The body's length is not the type's.
        BadLength = 7 => "wrong body length",
        /// No extension message has this type.
        UnknownType = 8 => "unknown message type",
    }
}

impl fmt::Display for ExtResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

byte_enum! {
    /// How a transmission ended, as the truth stream says it.
    TruthOutcome, name: "`A`, `LD`, `LA`, `NOACK`, `DROP`." {
        /// A: acknowledged.
        Acked = 0 => "A",
        /// LD: the last attempt's DATA frame did not reach its destination.
        DataLost = 1 => "LD",
        /// LA: the last attempt's DATA frame arrived, its ACK was lost.
        AckLost = 2 => "LA",
        /// Sent without acknowledgement (no-ack or group addressed).
        NoAck = 3 => "NOACK",
        /// Never on air: refused by the daemon, or still queued at shutdown.
        Dropped = 4 => "DROP",
    }
}

byte_enum! {
    /// Why the last attempt failed, as the truth stream says it. Codes 0 to 9 are the
    /// engine's causes; 16 and up the daemon's reasons for not carrying a frame.
    TruthCause, name: "Short name." {
        /// Nothing went wrong.
        None = 0 => "none",
        /// Another transmission overlapped it at the receiver.
        Collision = 1 => "collision",
        /// The error model rejected it at its SINR.
        LowSinr = 2 => "low_sinr",
        /// Below the receiver's sensitivity, or no receiver has the address.
        OutOfRange = 3 => "out_of_range",
        /// The receiver was transmitting.
        HalfDuplex = 4 => "half_duplex",
        /// The receiver was receiving another frame.
        ReceiverBusy = 5 => "receiver_busy",
        /// The link's configured error probability dropped it.
        LinkErrorProb = 6 => "link_error_prob",
        /// The link's configured preamble-miss probability dropped it.
        PreambleMissed = 7 => "preamble_missed",
        /// The queue was full.
        QueueFull = 8 => "queue_full",
        /// Cancelled.
        Cancelled = 9 => "cancelled",
        /// Refused: no 802.11 frame.
        Malformed = 16 => "malformed",
        /// Refused: no rate entry the channel carries.
        NoUsableRate = 17 => "no_usable_rate",
        /// Refused by the engine.
        EngineRefused = 18 => "engine_refused",
        /// Still in flight when the daemon stopped.
        Shutdown = 19 => "shutdown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_maps_back_to_itself_or_to_nothing() {
        let mut known = [0usize; 3];
        for b in 0..=u8::MAX {
            if let Some(r) = ExtResult::from_u8(b) {
                assert_eq!(r as u8, b);
                known[0] += 1;
            }
            if let Some(o) = TruthOutcome::from_u8(b) {
                assert_eq!(o as u8, b);
                known[1] += 1;
            }
            if let Some(c) = TruthCause::from_u8(b) {
                assert_eq!(c as u8, b);
                known[2] += 1;
            }
        }
        assert_eq!(known, [9, 5, 14], "variants of ExtResult, TruthOutcome, TruthCause");
        assert_eq!(TruthCause::from_u8(16).map(TruthCause::name), Some("malformed"));
        assert_eq!(TruthOutcome::AckLost.name(), "LA");
        assert_eq!(ExtResult::BadLength.to_string(), "wrong body length");
    }
}
