//! EDF on the emu backend: stations with an urgent periodic flow and a bulk flow
//! whose bursts would hold the urgent frames up in a FIFO queue. Scheduling by
//! deadline above the MAC misses fewer deadlines than the MAC's FIFO on the same seed.

use sdmac_api::{Interface, MacAddress, Rate, Span};
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{Medium, MediumConfig, StationConfig};
use sdmac_overlay::edf::{run_edf, run_fifo, EdfConfig, EdfError, EdfFate, EdfReport, Flow};
use sdmac_phy::{Phy, Standard};

const STATIONS: usize = 2;

fn addr(k: usize) -> [u8; 6] {
    [2, 0, 0, 0, 0, k as u8 + 1]
}

fn session(seed: u64) -> (EmuSession, Vec<Interface<EmuIface>>, Phy) {
    let phy = Phy::new(Standard::Dot11a);
    let mut cfg = MediumConfig::new(phy.clone());
    cfg.seed = seed;
    let mut m = Medium::new(cfg);
    m.add_station(StationConfig::new(&phy, addr(0), [0.0, 0.0, 0.0]));
    for k in 1..=STATIONS {
        m.add_station(StationConfig::new(&phy, addr(k), [5.0, k as f64, 0.0]));
    }
    let names: Vec<String> = (1..=STATIONS).map(|k| format!("s{k}")).collect();
    let list: Vec<(&str, u32)> =
        names.iter().enumerate().map(|(k, s)| (s.as_str(), k as u32 + 1)).collect();
    let mut s = EmuSession::start(m, &list, EmuOptions::default()).unwrap();
    let ifaces = (0..STATIONS).map(|k| s.take_index(k).unwrap()).collect();
    (s, ifaces, phy)
}

/// Bulk first: released at the same instant, a FIFO queue holds the urgent frame
/// behind the burst of eight 1.5 kB frames (8 × 0.7 ms at 24 Mb/s, with their ACKs).
/// The stations' bursts are 10 ms apart.
fn config(phy: &Phy, station: usize) -> EdfConfig {
    let offset = Span::from_ms(10 * station as u64);
    EdfConfig {
        phy: phy.clone(),
        dst: MacAddress(addr(0)),
        flows: vec![
            Flow {
                name: "bulk".into(),
                period: Span::from_ms(20),
                offset,
                burst: 8,
                deadline: Span::from_ms(40),
                payload: 1500,
                rate: Rate::Ofdm24,
            },
            Flow {
                name: "urgent".into(),
                period: Span::from_ms(5),
                offset,
                burst: 1,
                deadline: SLACK,
                payload: 100,
                rate: Rate::Ofdm24,
            },
        ],
        tries_per_request: 1,
        in_mac: 4,
        max_attempts: 7,
    }
}

fn run(edf: bool, seed: u64) -> Vec<EdfReport> {
    let (mut s, ifaces, phy) = session(seed);
    let start = ifaces[0].now() + Span::from_ms(5);
    let end = start + Span::from_ms(800);
    let hs: Vec<_> = ifaces
        .into_iter()
        .enumerate()
        .map(|(k, mut i)| {
            let cfg = config(&phy, k);
            std::thread::spawn(move || {
                if edf {
                    run_edf(&mut i, &cfg, start, end).unwrap()
                } else {
                    run_fifo(&mut i, &cfg, 7, start, end).unwrap()
                }
            })
        })
        .collect();
    let r = hs.into_iter().map(|h| h.join().unwrap()).collect();
    s.close();
    r
}

fn ratio(r: &[EdfReport]) -> (u64, u64) {
    r.iter()
        .flat_map(|x| &x.flows)
        .fold((0, 0), |(m, d), f| (m + f.late + f.dropped, d + f.met + f.late + f.dropped))
}

/// The urgent flow's deadline: EDF can only keep it if the host wakes the scheduler
/// within it.
const SLACK: Span = Span::from_ms(4);

/// Every frame released has a record, and the records' fates add up to the flows'
/// counts; an acknowledged frame went on air before it was acknowledged.
fn records_agree_with_counts(r: &EdfReport) {
    let released: u64 = r.flows.iter().map(|f| f.released).sum();
    assert_eq!(r.frames.len() as u64, released);
    for (k, f) in r.flows.iter().enumerate() {
        let of = |fate: EdfFate| {
            r.frames.iter().filter(|x| x.flow == k && x.fate == fate).count() as u64
        };
        assert_eq!(
            (of(EdfFate::Met), of(EdfFate::Late), of(EdfFate::Dropped), of(EdfFate::Unfinished)),
            (f.met, f.late, f.dropped, f.unfinished),
            "flow {}",
            f.name
        );
    }
    for x in &r.frames {
        if let Some(a) = x.acked_at {
            assert!(x.first_tx.is_some_and(|t| t < a), "{x:?}");
            assert_eq!(a <= x.deadline, x.fate == EdfFate::Met, "{x:?}");
        }
    }
}

#[test]
fn edf_misses_fewer_deadlines_than_fifo() {
    // A run in which the host held the EDF scheduler up longer than the urgent
    // deadline (a machine shared with other builds can) and EDF lost tests the host,
    // not EDF: it is reported and run again, three times at most.
    for run_no in 1..=3 {
        // Both at once, each on its own medium with the same seed, so that the load
        // of the machine weighs on them alike.
        let f = std::thread::spawn(|| run(false, 11));
        let edf = run(true, 11);
        let fifo = f.join().unwrap();
        let (fm, fd) = ratio(&fifo);
        let (em, ed) = ratio(&edf);
        let late = edf.iter().map(|r| r.max_host_lag).max().unwrap();
        println!("run {run_no}: FIFO {fm} of {fd} missed {fifo:?}\nEDF {em} of {ed} missed, host lag up to {late} {edf:?}");
        assert!(fd > 100 && ed > 100, "too few frames finished: FIFO {fd}, EDF {ed}");
        for r in fifo.iter().chain(&edf) {
            records_agree_with_counts(r);
        }
        assert!(fm > 0, "the bursts never held an urgent frame up under FIFO");
        let better = (em as f64) / (ed as f64) < (fm as f64) / (fd as f64);
        if !better && late > SLACK && run_no < 3 {
            println!("the host held EDF up {late}, beyond the {SLACK} slack: run again");
            continue;
        }
        assert!(better, "EDF missed {em} of {ed}, FIFO {fm} of {fd} (EDF's host lag up to {late})");
        return;
    }
}

#[test]
fn an_impossible_set_up_is_refused_before_sending() {
    let (mut s, mut ifaces, phy) = session(1);
    let mut cfg = config(&phy, 0);
    cfg.flows[1].deadline = Span::from_us(10);
    let now = ifaces[0].now();
    let e = run_edf(&mut ifaces[0], &cfg, now, now + Span::from_ms(10)).unwrap_err();
    assert!(matches!(e, EdfError::BadFlow { .. }), "{e}");
    assert_eq!(ifaces[0].unconfirmed(), 0);
    let cfg = config(&phy, 0);
    let e = run_fifo(&mut ifaces[0], &cfg, 7, now, now).unwrap_err();
    assert_eq!(e, EdfError::EmptyRun);
    s.close();
}
