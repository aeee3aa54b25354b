//! The `control_decoder` fuzz target on stable Rust: every file of its committed
//! corpus (`fuzz/seeds/control_decoder/`), and inputs derived from them, through the
//! same check the target runs (`fuzz/checks/control_decoder.rs`). `make fuzz` runs
//! the real campaign.

mod replay {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/replay.rs"));
}
mod control_decoder {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/control_decoder.rs"));
}

#[test]
fn control_decoder_corpus() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/control_decoder");
    assert!(replay::replay(&dir, control_decoder::check) > 0);
}

/// The seeds reach the decoder's depths: every request type, decoded whole.
#[test]
fn the_seeds_hold_every_request_type() {
    use sdmac_mediumd::control::Decoder;
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/seeds/control_decoder/all_in_pieces_of_5.bin"),
    )
    .unwrap();
    let mut d = Decoder::new();
    d.push(&bytes[1..]);
    let mut types = Vec::new();
    while let Some((_, raw)) = d.next_request().unwrap() {
        types.push(raw[0]);
    }
    assert_eq!(types, vec![1, 3, 5, 7, 9, 9, 11, 13, 15, 17, 19, 21, 23, 0]);
}

mod kernel_msg {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/kernel_msg.rs"));
}
mod mediumd_config {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/checks/mediumd_config.rs"));
}

/// The `hwsim_msg` target's corpus through the daemon's intake (its second check).
#[test]
fn hwsim_msg_corpus_through_the_daemon() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/hwsim_msg");
    assert!(replay::replay(&dir, kernel_msg::check) > 0);
}

/// The `wmconfig` target's corpus through the daemon's set-up (its second check).
#[test]
fn wmconfig_corpus_through_the_daemon() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/wmconfig");
    assert!(replay::replay(&dir, mediumd_config::check) > 0);
}

/// A frame whose rate series allows 510 tries, none of which reaches a receiver (the
/// input the `hwsim_msg` target once crashed on, in the engine's attempt counters):
/// its status comes back after 255 attempts.
#[test]
fn a_frame_of_more_than_255_tries_gets_its_status() {
    use sdmac_mediumd::hwsim_medium::{HwsimMedium, Output, Setup};
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/seeds/hwsim_msg/frame_over_255_tries.bin"),
    )
    .unwrap();
    let mut medium = HwsimMedium::new(Setup::default());
    let mut out = Vec::new();
    sdmac_mediumd::kernel_msg::on_datagram(&mut medium, 1_000, &bytes, 0x1d, 0, &mut out);
    medium.advance(20_000_000_000, &mut out);
    let statuses: Vec<u32> = out
        .iter()
        .filter_map(|o| match o {
            Output::TxStatus { attempts, .. } => Some(attempts.iter().map(|&a| u32::from(a)).sum()),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, vec![255], "one status, after 255 attempts");
}
