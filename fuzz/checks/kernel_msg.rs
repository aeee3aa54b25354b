// What the `hwsim_msg` fuzz target runs on each input besides `hwsim_msg.rs`: the
// daemon's own intake. Included (`include!`) by the target and by
// `crates/sdmac-mediumd/tests/fuzz_corpus.rs`, which replays the corpus on stable Rust.
//
// The datagram goes where a received one goes in sdmac-mediumd: `each_message` picks
// the frames, addresses and refused statuses of the hwsim family, a fresh medium
// (`HwsimMedium`, default set-up) takes them in (`on_datagram`) and runs a second on,
// and the encoder packs what it answers into datagrams for the kernel. Every message
// the daemon would send decodes as a hwsim message of the daemon's family. The family
// is each distinct message type of the input (and of a request an NLMSG_ERROR
// carries), at most four of them, so that the input picks it.

use sdmac_mediumd::encode::Encoder;
use sdmac_mediumd::hwsim_medium::{HwsimMedium, Setup};
use sdmac_mediumd::kernel_msg::{each_message, on_datagram, KernelMsg};
use sdmac_netlink::nl;
use sdmac_netlink::HwsimMsg;

/// The families an input is read as: the types of its messages and of the requests
/// its errors carry, without repeats, at most four.
fn families(data: &[u8]) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::new();
    for p in nl::messages(data).map_while(Result::ok) {
        let mut ty = p.header().ty;
        if ty == nl::NLMSG_ERROR {
            match nl::ErrorMsg::parse(&p).ok().and_then(|e| e.request) {
                Some(r) => ty = r.ty,
                None => continue,
            }
        }
        if !out.contains(&ty) {
            out.push(ty);
        }
        if out.len() == 4 {
            break;
        }
    }
    out
}

/// Runs the daemon's intake on `data`; panics when what it sends back does not decode.
pub fn check(data: &[u8]) {
    for family in families(data) {
        each_message(data, family, 0, |m| match m {
            KernelMsg::Frame(f) => {
                assert!(f.rates.len() <= 4, "at most the kernel's four rate entries");
                let within = data.as_ptr_range();
                assert!(
                    f.frame.is_empty() || within.contains(&f.frame.as_ptr()),
                    "the frame is the datagram's"
                );
            }
            KernelMsg::AddMacAddr(..) => {}
            KernelMsg::StatusRefused { msg, .. } => {
                let p =
                    nl::NlPacket::new_checked(msg).expect("a refused status is a whole message");
                assert!(matches!(HwsimMsg::parse(&p), Ok(HwsimMsg::TxInfo(_))));
            }
        });
        let mut medium = HwsimMedium::new(Setup::default());
        let mut out = Vec::new();
        on_datagram(&mut medium, 1_000, data, family, 0, &mut out);
        medium.advance(1_000_000_000, &mut out);
        let mut enc = Encoder::new(family, 7, 0);
        enc.send(
            &mut out,
            1_000_000_000,
            None,
            |dg| {
                for p in nl::messages(dg) {
                    let p = p.expect("the daemon sends whole netlink messages");
                    assert_eq!(p.header().ty, family, "the daemon sends its family's messages");
                    if let Err(e) = HwsimMsg::parse(&p) {
                        panic!("the daemon sends a message that does not decode: {e}");
                    }
                }
                Ok(())
            },
            |_, _, _, _| Ok(()),
        )
        .expect("encoding to memory does not fail");
    }
}
