//! Validation against Bianchi's analytical model of DCF saturation throughput
//! (G. Bianchi, "Performance analysis of the IEEE 802.11 distributed coordination
//! function", IEEE JSAC 18(3), 2000): 802.11a, 54 Mb/s, 1500 B payloads, basic access.

use sdmac_sim::{run, RunOptions, Scenario};

/// Bianchi's Markov chain fixed point: tau(p) and p(tau), solved by bisection on p.
fn bianchi_tau_p(n: u32, w: f64, m: i32) -> (f64, f64) {
    let tau_of = |p: f64| -> f64 {
        if n == 1 {
            return 2.0 / (w + 1.0);
        }
        // Bianchi's eq. (7), 2(1-2p) / ((1-2p)(W+1) + pW(1-(2p)^m)), divided through by
        // (1-2p) so that p = 1/2 is not a 0/0: (1-(2p)^m)/(1-2p) = sum_{i<m} (2p)^i.
        let geometric: f64 = (0..m).map(|i| (2.0 * p).powi(i)).sum();
        2.0 / (w + 1.0 + p * w * geometric)
    };
    if n == 1 {
        return (tau_of(0.0), 0.0);
    }
    // f(p) = 1 - (1 - tau(p))^(n-1) - p is decreasing in p: bisection.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let p = 0.5 * (lo + hi);
        let f = 1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1) - p;
        if f > 0.0 {
            lo = p;
        } else {
            hi = p;
        }
    }
    let p = 0.5 * (lo + hi);
    (tau_of(p), p)
}

/// Saturation throughput in Mb/s. Times in µs: slot, DATA, ACK, SIFS, DIFS; payload bits.
fn bianchi_throughput(n: u32) -> (f64, f64) {
    let (slot, data, ack, sifs, difs) = (9.0, 248.0, 28.0, 16.0, 34.0);
    let payload_bits = 1500.0 * 8.0;
    let (tau, p) = bianchi_tau_p(n, 16.0, 6);
    let n = n as f64;
    let p_tr = 1.0 - (1.0 - tau).powf(n);
    let p_s = n * tau * (1.0 - tau).powf(n - 1.0) / p_tr;
    let ts = data + sifs + ack + difs;
    let tc = data + difs;
    let s = p_s * p_tr * payload_bits
        / ((1.0 - p_tr) * slot + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc);
    (s, p)
}

#[test]
fn the_fixed_point_reproduces_the_published_values() {
    // FACTS: n = 1, 2, 5, 10, 15, 20, 30, 50.
    let published = [
        (1, 30.496, 0.0),
        (2, 31.497, 0.105),
        (5, 30.127, 0.272),
        (10, 28.302, 0.384),
        (15, 27.157, 0.442),
        (20, 26.316, 0.481),
        (30, 25.078, 0.533),
        (50, 23.400, 0.595),
    ];
    for (n, s, p) in published {
        let (ms, mp) = bianchi_throughput(n);
        assert!((ms - s).abs() < 0.002, "n={n}: {ms} vs {s}");
        assert!((mp - p).abs() < 0.001, "n={n}: p {mp} vs {p}");
    }
}

fn scenario(n: u32, seed: u64, retry_limit: u32) -> String {
    format!(
        "duration = 10\nseed = {seed}\n[phy]\nstandard = \"802.11a\"\nrate = 54\nretry_limit = {retry_limit}\n\
         [[station]]\nname = \"ap\"\nposition = [0, 0]\n[[station]]\nname = \"sta\"\nposition = [1, 0]\ncount = {n}\n\
         [[flow]]\nfrom = \"sta\"\nto = \"ap\"\npattern = \"saturated\"\npayload = 1500\n"
    )
}

fn simulate(n: u32, seed: u64, retry_limit: u32) -> (f64, f64) {
    let s = Scenario::parse(&scenario(n, seed, retry_limit), "bianchi").unwrap();
    let j = run(&s, &RunOptions::default(), &mut |_| true).unwrap().to_json();
    (
        j["aggregate"]["throughput_mbps"].as_f64().unwrap(),
        j["aggregate"]["collision_probability"].as_f64().unwrap(),
    )
}

#[test]
fn saturation_throughput_is_within_3_percent_of_bianchi() {
    // Bianchi's chain has no retry limit: give the simulator none that matters either.
    for n in [1, 2, 5, 10, 20, 50] {
        let (model, p_model) = bianchi_throughput(n);
        let (sim, p_sim) = simulate(n, 1, 255);
        let err = (sim - model) / model;
        println!("n={n:2}  bianchi {model:7.3} Mb/s p={p_model:.3}   sdmac {sim:7.3} Mb/s p={p_sim:.3}   {:+.2} %", err * 100.0);
        assert!(
            err.abs() < 0.03,
            "n={n}: sdmac {sim} Mb/s vs Bianchi {model} Mb/s ({:+.2} %)",
            err * 100.0
        );
        assert!(
            (p_sim - p_model).abs() < 0.03,
            "n={n}: collision probability {p_sim} vs {p_model}"
        );
    }
}

#[test]
fn one_station_is_exact() {
    // 7.5 slots mean backoff * 9 µs + DIFS 34 + DATA 248 + SIFS 16 + ACK 28 = 393.5 µs.
    let (sim, p) = simulate(1, 3, 7);
    assert_eq!(p, 0.0);
    assert!((sim - 12_000.0 / 393.5).abs() / (12_000.0 / 393.5) < 0.005, "{sim}");
}
