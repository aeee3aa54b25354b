//! Opening backends by name: `emu` and `emu:SCENARIO.toml` run, the radio backends
//! say they are not in this build, and bad names and files are named in the error.

use sdmac_api::{Ac, BackendName, Body, Scope, Status, TxAttrs, Value, Wait};
use sdmac_open::{open, open_with, AnyInterface, HwsimOpenOptions, OpenError, OpenOptions};
use std::path::PathBuf;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mac(i: &mut AnyInterface, name: &str) -> sdmac_api::MacAddress {
    match i.get(name, Scope::Adapter).unwrap() {
        Value::Mac(m) => m,
        v => panic!("{name} is {v:?}"),
    }
}

/// One confirmed one-shot at 54 Mb/s to the interface's BSS.
fn one_shot(i: &mut AnyInterface, id: u64) -> sdmac_api::Confirmation {
    let bssid = mac(i, "bssid");
    i.data_req(
        id,
        Body::Payload(&[7u8; 50]),
        Ac::Be,
        &TxAttrs::one_shot(bssid, sdmac_api::Rate::Ofdm54),
    )
    .unwrap();
    i.data_con(Wait::For(Duration::from_secs(5))).unwrap().expect("a confirmation")
}

#[test]
fn emu_is_the_papers_testbed_seen_from_the_station() {
    let mut i = open("emu").unwrap();
    assert_eq!(i.backend().label(), "emu");
    assert_eq!(mac(&mut i, "address").to_string(), "02:00:00:00:00:02");
    assert_eq!(mac(&mut i, "bssid").to_string(), "02:00:00:00:00:01");
    assert_eq!(i.get("channel", Scope::Adapter).unwrap(), Value::Int(36));
    let b = i.beacon_ind(Wait::For(Duration::from_secs(2))).unwrap().expect("the AP beacons");
    assert_eq!(b.bssid.to_string(), "02:00:00:00:00:01");
    for id in 1..=20 {
        let c = one_shot(&mut i, id);
        assert_eq!((c.id, c.status, c.attempts, c.set_name()), (id, Status::Acked, 1, "A"));
        assert!(c.ts.t9 >= c.ts.t1 && !c.ts.t1.is_zero());
    }
    assert_eq!(i.unconfirmed(), 0);
}

fn scenario(text: &str) -> (tempdir::Dir, String) {
    let d = tempdir::Dir::new();
    let p = d.0.join("s.toml");
    std::fs::write(&p, text).unwrap();
    let s = p.display().to_string();
    (d, s)
}

/// A throw-away directory.
mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            use std::sync::atomic::{AtomicU32, Ordering};
            static N: AtomicU32 = AtomicU32::new(0);
            let p = std::env::temp_dir().join(format!(
                "sdmac-open-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

const LOSSY: &str = r#"
name = "lossy"
duration = 1.0
[phy]
standard = "802.11a"
rate = 54
[[station]]
name = "ap"
address = "02:00:00:00:00:01"
position = [0, 0]
ap = true
[[station]]
name = "a"
address = "02:00:00:00:00:0a"
position = [3, 0]
[[station]]
name = "b"
address = "02:00:00:00:00:0b"
position = [0, 3]
[[link]]
from = "a"
to = "ap"
error_prob = 1.0
"#;

#[test]
fn emu_scenario_opens_the_first_station_that_is_not_an_ap_or_the_one_named() {
    let (_d, path) = scenario(LOSSY);
    let mut a = open(&format!("emu:{path}")).unwrap();
    assert_eq!(mac(&mut a, "address").to_string(), "02:00:00:00:00:0a");
    // Its link to the AP loses every DATA frame: the scenario's links are in force.
    let c = one_shot(&mut a, 1);
    assert_eq!((c.status, c.set_name(), c.attempts), (Status::AckTimeout, "LD", 1));
    let mut b = open(&format!("emu:{path}#b")).unwrap();
    assert_eq!(mac(&mut b, "address").to_string(), "02:00:00:00:00:0b");
    assert_eq!(one_shot(&mut b, 1).status, Status::Acked);
}

#[test]
fn the_examples_scenarios_open() {
    let p = root().join("examples/scenarios/two_stations_cbr.toml");
    let mut i = open(&format!("emu:{}#sta2", p.display())).unwrap();
    assert_eq!(mac(&mut i, "address").to_string(), "02:00:00:00:01:02");
}

#[test]
fn hwsim_without_a_daemon_names_the_socket_and_points_to_linux() {
    let name = BackendName::parse("hwsim:wlan9").unwrap();
    let opts = OpenOptions {
        hwsim: HwsimOpenOptions {
            socket: Some("/nonexistent/sdmac-test.sock".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = open_with(&name, &opts).unwrap_err();
    assert!(matches!(e, OpenError::Radio { kind: "NoDaemon", .. }), "{e:?}");
    assert_eq!(e.kind(), "NoDaemon");
    let m = e.to_string();
    assert!(m.starts_with("backend \"hwsim:wlan9\": no medium daemon answers on the control socket /nonexistent/sdmac-test.sock ("), "{m}");
    assert!(
        m.contains("start sdmac-mediumd with -s /nonexistent/sdmac-test.sock")
            && m.contains("linux:wlan9 opens the same radio"),
        "{m}"
    );
}

#[test]
fn linux_names_the_interface_it_cannot_open() {
    // No interface has this name (valid, but never created by anything).
    let e = open("linux:sdmacnone9").unwrap_err();
    assert!(matches!(e, OpenError::Radio { kind: "UnknownInterface", .. }), "{e:?}");
    assert!(
        e.to_string().starts_with("backend \"linux:sdmacnone9\": ")
            && e.to_string().matches("sdmacnone9").count() >= 2,
        "{e}"
    );
    // The loopback interface exists everywhere and is not wireless.
    let e = open("linux:lo").unwrap_err();
    assert!(matches!(e, OpenError::Radio { kind: "NotWireless", .. }), "{e:?}");
    assert_eq!(e.kind(), "NotWireless");
    assert!(e.to_string().contains("lo"), "{e}");
}

#[test]
fn bad_names_and_files_are_named() {
    let e = open("wifi0").unwrap_err();
    assert!(matches!(e, OpenError::Name(_)), "{e:?}");
    assert!(e.to_string().contains("\"wifi0\"") && e.to_string().contains("unknown kind"), "{e}");
    assert!(open("hwsim").unwrap_err().to_string().contains("missing interface"));

    let e = open("emu:/nonexistent/s.toml").unwrap_err();
    assert!(matches!(e, OpenError::Scenario { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent/s.toml"), "{e}");

    let (_d, path) =
        scenario("name = \"x\"\nduration = 1.0\n[[station]]\nname = \"ap\"\nbogus = 3\n");
    let e = open(&format!("emu:{path}")).unwrap_err().to_string();
    assert!(e.contains("s.toml") && e.contains("bogus"), "{e}");

    let (_d2, path) = scenario(LOSSY);
    let e = open(&format!("emu:{path}#ghost")).unwrap_err();
    assert_eq!(e.to_string(), format!("backend \"emu:{path}#ghost\": the scenario has no station \"ghost\" (stations: ap, a, b)"));

    let only_ap =
        "name = \"x\"\nduration = 1.0\n[[station]]\nname = \"ap\"\nposition = [0, 0]\nap = true\n";
    let (_d3, path) = scenario(only_ap);
    let e = open(&format!("emu:{path}")).unwrap_err().to_string();
    assert!(e.contains("no station that is not an AP") && e.contains("#STATION"), "{e}");
}

#[test]
fn dropping_the_interface_stops_the_medium() {
    let mut i = open("emu").unwrap();
    let bssid = mac(&mut i, "bssid");
    // Many requests queued, then dropped while in flight: must not hang.
    for id in 1..=50 {
        let _ = i.data_req(
            id,
            Body::Payload(&[0u8; 1000]),
            Ac::Be,
            &TxAttrs::one_shot(bssid, sdmac_api::Rate::Ofdm6),
        );
    }
    drop(i);
}

/// The paper's measurement task (`sdmac_api::oneshot`) runs on whatever `open`
/// returns: on a scenario whose DATA frames are lost with probability 0.3, about
/// 30 % of the one-shots are LD, each after exactly one attempt.
#[test]
fn the_oneshot_task_runs_on_an_opened_backend() {
    use sdmac_api::oneshot::{run, Mode, OneshotParams};
    let (_d, path) =
        scenario(&LOSSY.replace("error_prob = 1.0", "error_prob = 0.3\nsymmetric = false"));
    let mut i = open(&format!("emu:{path}")).unwrap();
    let n = 400u64;
    let p = OneshotParams {
        mode: Mode::BackToBack { gap: sdmac_api::Span::from_ns(250_000) },
        count: n,
        payload: 50,
        rate: sdmac_api::Rate::Ofdm54,
        dst: mac(&mut i, "bssid"),
        ac: Ac::Be,
        timeout: Duration::from_secs(5),
    };
    let samples = run(&mut i, &p, |_, _| true).unwrap();
    assert_eq!(samples.len() as u64, n);
    assert!(samples.iter().all(|s| s.attempts == 1 && (s.set == "A" || s.set == "LD")));
    let ld = samples.iter().filter(|s| s.set == "LD").count() as f64;
    // 99.9 % normal interval of a binomial(400, 0.3): 0.3 ± 3.29 · 0.0229.
    let share = ld / n as f64;
    assert!((share - 0.3).abs() < 3.29 * (0.3f64 * 0.7 / n as f64).sqrt(), "LD share {share}");
}
