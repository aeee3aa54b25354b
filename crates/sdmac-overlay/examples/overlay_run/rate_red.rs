//! `overlay_run rate` and `overlay_run redundancy`.

use super::{
    address, open_named, phy_of, receive_tagged, wrap, Args, Loss, Named, Outcome, TruthTap,
    RETX_TAG,
};
use sdmac_api::{
    Ac, Backend, Body, Confirmation, DropReason, Interface, MacAddress, Rate, RateSeries, Scope,
    Span, Status, Time, Timestamps, TxAttrs, Value, Wait,
};
use sdmac_control::client::Client;
use sdmac_emu::{EmuIface, EmuOptions, EmuSession};
use sdmac_medium::{LinkOverride, Medium, MediumConfig, StationConfig};
use sdmac_open::{AnyBackend, OpenOptions};
use sdmac_overlay::rate::{Minstrel, MinstrelConfig};
use sdmac_overlay::redundancy::{
    self, Mode, RedundantReceiver, RedundantSender, RunPlan, SenderConfig,
};
use sdmac_phy::{Phy, Standard};
use serde_json::{json, Value as Json};
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The rate run's candidate rates: the OFDM rates, which both 802.11a and the 2.4 GHz
/// band (ERP) have.
const OFDM: [Rate; 8] = sdmac_phy::rate::OFDM_RATES;

/// Tries of the fixed baseline: as many as the adaptation's four entries of two.
const FIXED_TRIES: u8 = 8;

/// The rate run's own checks: emu, or a sender and a receiver named.
pub(super) fn check_rate_args(a: &Args) -> Result<(), String> {
    if a.coordinator.is_some() || !a.stations.is_empty() {
        return Err("rate names its interfaces with --sender NAME --receiver NAME".into());
    }
    if a.senders.len() > 1 || a.receivers.len() > 1 {
        return Err("rate takes one --sender and one --receiver".into());
    }
    if a.per.is_some() || !a.freqs.is_empty() {
        return Err("--per is an option of retx, --freq of redundancy".into());
    }
    match (&a.backend, &a.sender, &a.receiver) {
        (Some(b), None, None) if b == "emu" => {}
        (None, Some(_), Some(_)) if a.snr_db.is_some() => {
            return Err("--snr-db sets the emulated link's SNR; on hwsim the medium daemon's configuration gives it".into())
        }
        (None, Some(_), Some(_)) => {}
        _ => return Err("give --backend emu or --sender NAME --receiver NAME".into()),
    }
    if a.packets == 0 || a.packets > 65_535 {
        return Err(format!("--packets {}: from 1 to 65535", a.packets));
    }
    if a.payload < 4 {
        return Err(format!("--payload {}: at least 4 bytes (the packet's tag)", a.payload));
    }
    Ok(())
}

/// The redundancy run's own checks: two senders, two receivers, two channels.
pub(super) fn check_redundancy_args(a: &Args) -> Result<(), String> {
    if a.backend.is_some() || a.coordinator.is_some() || !a.stations.is_empty() {
        return Err("redundancy names its interfaces: --sender NAME --sender NAME --receiver NAME --receiver NAME".into());
    }
    if a.senders.len() != 2 || a.receivers.len() != 2 {
        return Err(format!(
            "redundancy needs two --sender and two --receiver (given {} and {}): one of each per channel",
            a.senders.len(),
            a.receivers.len()
        ));
    }
    if !a.freqs.is_empty() && (a.freqs.len() != 2 || a.freqs[0] == a.freqs[1]) {
        return Err(format!(
            "--freq given {:?}: give none, or two different channels (the first sender's and receiver's, then the second's)",
            a.freqs
        ));
    }
    if a.per.is_some() || a.snr_db.is_some() {
        return Err("--per is an option of retx, --snr-db of rate".into());
    }
    if a.packets == 0 || a.packets > 1_000_000 {
        return Err(format!("--packets {}: from 1 to 1000000", a.packets));
    }
    if a.payload > redundancy::MAX_APP_PAYLOAD {
        return Err(format!("--payload {}: at most {}", a.payload, redundancy::MAX_APP_PAYLOAD));
    }
    Ok(())
}

/// A sender and a receiver 10 m apart on an emulated 802.11a medium whose link has an
/// SNR of `snr` dB each way (the NIST error model gives each rate its loss).
fn rate_emu_session(
    snr: f64,
) -> Result<(EmuSession, Interface<EmuIface>, Interface<EmuIface>, Phy), String> {
    let phy = Phy::new(Standard::Dot11a);
    let mut m = Medium::new(MediumConfig::new(phy.clone()));
    let rx = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 1], [0.0, 0.0, 0.0]));
    let tx = m.add_station(StationConfig::new(&phy, [2, 0, 0, 0, 0, 2], [10.0, 0.0, 0.0]));
    let link = || LinkOverride { snr_db: Some(snr), ..LinkOverride::default() };
    m.set_link(tx, rx, link());
    m.set_link(rx, tx, link());
    let mut s = EmuSession::start(m, &[("rx", 0), ("tx", 1)], EmuOptions::default())
        .map_err(|e| format!("emu session: {e}"))?;
    let r = s.take("rx").ok_or("emu session: no receiver")?;
    let t = s.take("tx").ok_or("emu session: no sender")?;
    Ok((s, t, r, phy))
}

/// `rate` on emu (a link of its own SNR) or on the backends named.
pub(super) fn main_rate(a: &Args) -> Result<Outcome, String> {
    let log = Arc::new(Mutex::new(Vec::new()));
    if a.backend.is_some() {
        let snr = a.snr_db.unwrap_or(15.0);
        let (mut session, t, r, phy) = rate_emu_session(snr)?;
        let s = wrap(t, 0, "emu:tx".into(), &log)?;
        let r = wrap(r, 1, "emu:rx".into(), &log)?;
        let link = Loss {
            text: format!("link emu:tx <-> emu:rx: SNR {snr} dB each way, set on the emulated medium (NIST error model)"),
            json: json!({"source": "the emulated medium's link (--snr-db)", "snr_db": snr}),
        };
        let out = run_rate(s, r, phy, a, "emu", link, None);
        session.close();
        return out;
    }
    let super::NamedPair { opts, hwsim, tap, s, r, phy } = super::open_pair(a, &log)?;
    let (sn, rn) = (s.name.clone(), r.name.clone());
    let link = if hwsim {
        let path = opts.hwsim.socket_path();
        let mut c = Client::connect(&path)
            .map_err(|e| format!("the medium daemon's control socket {}: {e}", path.display()))?;
        let l = c.get_link(s.addr, r.addr).map_err(|e| {
            format!("reading the link {} -> {} from the daemon: {e}", s.addr, r.addr)
        })?;
        Loss {
            text: format!(
                "link {sn} -> {rn}: SNR {} dB (the medium daemon's, read on its control socket; its error model gives each rate its loss)",
                l.snr_db
            ),
            json: json!({"source": "the medium daemon's link (control socket)",
                         "snr_db": l.snr_db, "error_prob": l.error_prob}),
        }
    } else {
        Loss {
            text: format!("link {sn} -> {rn}: whatever the medium gives (not known here)"),
            json: json!({"source": "the medium (not known here)"}),
        }
    };
    let backend = format!("{sn},{rn}");
    run_rate(s, r, phy, a, &backend, link, tap)
}

/// How one rate run chooses its series.
enum Choice {
    Adaptive(Box<Minstrel>),
    Fixed(RateSeries),
}

/// One rate run's counts.
#[derive(Default)]
struct RateCounts {
    sent: u64,
    delivered: u64,
    gave_up: u64,
    dropped: u64,
    attempts: u64,
    /// (rate, attempts, successes), lowest rate first.
    per_rate: Vec<(Rate, u64, u64)>,
    received: usize,
    from_ns: u64,
    to_ns: u64,
}

fn count_confirmation(n: &mut RateCounts, c: &Confirmation) {
    n.attempts += u64::from(c.attempts);
    match c.status {
        Status::Acked => n.delivered += 1,
        Status::Dropped(_) => n.dropped += 1,
        _ => n.gave_up += 1,
    }
    let used = c.rates_used();
    for (k, &(rate, tries)) in used.iter().enumerate() {
        let ok = c.status == Status::Acked && k + 1 == used.len() && tries > 0;
        if let Some(e) = n.per_rate.iter_mut().find(|e| e.0 == rate) {
            e.1 += u64::from(tries);
            e.2 += u64::from(ok);
        }
    }
}

/// `--packets` packets from `s` to `r`, at most `--window` in flight, their series
/// from `choice`; every packet's confirmation counted.
fn rate_packets<B: Backend + Send>(
    s: &mut Named<B>,
    raddr: MacAddress,
    choice: &mut Choice,
    pi: u8,
    a: &Args,
) -> Result<RateCounts, String> {
    let mut n =
        RateCounts { per_rate: OFDM.iter().map(|&r| (r, 0, 0)).collect(), ..RateCounts::default() };
    let mut in_flight = 0usize;
    let mut last = s.iface.now();
    while n.delivered + n.gave_up + n.dropped < a.packets {
        if n.sent < a.packets && in_flight < a.window {
            let now = s.iface.now();
            let rates = match choice {
                Choice::Adaptive(m) => m.series(raddr, now),
                Choice::Fixed(r) => *r,
            };
            let k = n.sent;
            let mut payload = vec![0x5a; a.payload];
            payload[..4].copy_from_slice(&[RETX_TAG, pi, (k >> 8) as u8, k as u8]);
            let attrs = TxAttrs { dst: Some(raddr), rates: Some(rates), ..TxAttrs::default() };
            s.iface
                .data_req(k, Body::Payload(&payload), Ac::Be, &attrs)
                .map_err(|e| format!("{}: data_req of packet {k}: {e}", s.name))?;
            n.sent += 1;
            in_flight += 1;
            continue;
        }
        match s
            .iface
            .data_con(Wait::For(Duration::from_millis(200)))
            .map_err(|e| format!("{}: data_con: {e}", s.name))?
        {
            Some(c) => {
                if let Choice::Adaptive(m) = choice {
                    m.confirm(raddr, &c);
                }
                count_confirmation(&mut n, &c);
                in_flight -= 1;
                last = s.iface.now();
            }
            None if s.iface.now().saturating_since(last) > Span::from_secs(20) => {
                return Err(format!(
                    "{}: no confirmation for 20 s with {in_flight} packets unconfirmed",
                    s.name
                ))
            }
            None => {}
        }
    }
    Ok(n)
}

/// The adaptation, then a fixed series at the highest rate, from `s` to `r`; per run
/// the attempts and successes per rate, what was delivered and, with a truth tap,
/// what the medium daemon saw on air.
fn run_rate<B: Backend + Send>(
    mut s: Named<B>,
    mut r: Named<B>,
    phy: Phy,
    a: &Args,
    backend: &str,
    link: Loss,
    tap: Option<TruthTap>,
) -> Result<Outcome, String> {
    let mut text = String::new();
    let mut push = |l: String| {
        text.push_str(&l);
        text.push('\n');
    };
    push(format!(
        "overlay rate on {backend}: {} ({}) sends to {} ({})",
        s.name, s.addr, r.name, r.addr
    ));
    push(link.text.clone());
    push(format!(
        "{} packets of {} B per run, at most {} in flight; candidate rates {}",
        a.packets,
        a.payload,
        a.window,
        OFDM.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(" ")
    ));
    let mut cfg = MinstrelConfig::new(phy.clone());
    cfg.rates = OFDM.to_vec();
    let top = *OFDM.last().expect("rates");
    let mut runs: Vec<(&'static str, Choice)> = vec![
        ("minstrel", Choice::Adaptive(Box::new(Minstrel::new(cfg).map_err(|e| e.to_string())?))),
        ("fixed_top", Choice::Fixed(RateSeries::single(top, FIXED_TRIES))),
    ];
    let (saddr, raddr) = (s.addr, r.addr);
    let mut done = Vec::new();
    for (pi, (_, choice)) in runs.iter_mut().enumerate() {
        let stop = AtomicBool::new(false);
        let from_ns = s.iface.now().as_ns();
        let (counts, received) = std::thread::scope(|sc| {
            let stop = &stop;
            let riface = &mut r.iface;
            let h = sc.spawn(move || receive_tagged(riface, saddr, pi as u8, stop));
            let c = rate_packets(&mut s, raddr, choice, pi as u8, a);
            stop.store(true, Ordering::Release);
            (c, h.join().expect("receiver thread"))
        });
        let mut counts = counts?;
        counts.received = received?.len();
        counts.from_ns = from_ns;
        counts.to_ns = s.iface.now().as_ns();
        done.push(counts);
    }
    let truth = match tap {
        Some(t) => Some(
            t.finish()?
                .into_iter()
                .filter(|r| r.ta == saddr && r.ra == raddr && !r.no_ack)
                .collect::<Vec<_>>(),
        ),
        None => None,
    };
    let mut assigned = 0;
    let mut rjson = Vec::new();
    for ((key, choice), n) in runs.iter().zip(&done) {
        let used = n.per_rate.iter().filter(|e| e.1 > 0).count();
        push(format!(
            "{key}: sent {}, delivered {}, gave up {}, dropped {}; attempts {}; rates used {used}; received by the receiver {}",
            n.sent, n.delivered, n.gave_up, n.dropped, n.attempts, n.received
        ));
        let per: Vec<String> = n
            .per_rate
            .iter()
            .filter(|e| e.1 > 0)
            .map(|(r, at, ok)| format!("{r} {ok}/{at}"))
            .collect();
        push(format!("  per rate (successes/attempts): {}", per.join(", ")));
        let best = match choice {
            Choice::Adaptive(m) => m.decision(raddr).map(|d| d.best_throughput.to_string()),
            Choice::Fixed(_) => None,
        };
        if let Some(b) = &best {
            push(format!("  best throughput at the end: {b}"));
        }
        let tj = match &truth {
            Some(recs) => {
                let mine: Vec<_> = recs
                    .iter()
                    .filter(|r| r.t_arrival_ns >= n.from_ns && r.t_arrival_ns <= n.to_ns)
                    .collect();
                assigned += mine.len();
                let on_air: u64 = mine.iter().map(|r| u64::from(r.total_attempts())).sum();
                let got = mine.iter().filter(|r| r.delivered).count();
                push(format!(
                    "  truth: {} frames, {on_air} attempts on air (the confirmations report {}), {got} frames received in some attempt",
                    mine.len(),
                    n.attempts
                ));
                json!({"frames": mine.len(), "attempts": on_air, "delivered_frames": got})
            }
            None => Json::Null,
        };
        rjson.push(json!({
            "policy": key, "sent": n.sent, "delivered": n.delivered, "gave_up": n.gave_up,
            "dropped": n.dropped, "attempts": n.attempts, "rates_used": used,
            "per_rate": n.per_rate.iter().map(|(r, at, ok)| json!({"rate": r.to_string(),
                "attempts": at, "successes": ok})).collect::<Vec<_>>(),
            "best_throughput": best, "received_by_receiver": n.received, "truth": tj,
        }));
    }
    let unassigned = truth.as_ref().map(|t| t.len() - assigned);
    if let Some(u) = unassigned {
        push(format!("truth source: the medium daemon's truth records (control socket); frames from {saddr} to {raddr} outside both runs: {u}"));
    }
    let (m, f) = (done[0].delivered, done[1].delivered);
    push(format!(
        "relation: the adaptation delivered {m} of {}, the fixed {top} {f} of {}",
        done[0].sent, done[1].sent
    ));
    let json = json!({
        "overlay": "rate", "backend": backend,
        "sender": {"name": s.name, "address": saddr.to_string()},
        "receiver": {"name": r.name, "address": raddr.to_string()},
        "link": link.json,
        "params": {"packets": a.packets, "payload": a.payload, "window": a.window,
                   "fixed_rate": top.to_string(), "fixed_tries": FIXED_TRIES},
        "runs": rjson,
        "truth": match unassigned {
            Some(u) => json!({"source": "the medium daemon's truth records (control socket)",
                              "unassigned_frames": u}),
            None => Json::Null,
        },
    });
    Ok(Outcome { text, json })
}

/// A request held in user space until the interface below has room for it.
struct Held {
    id: u64,
    bytes: Vec<u8>,
    frame: bool,
    ac: Ac,
    attrs: TxAttrs,
    t1: Time,
}

/// A transmit queue in user space in front of a backend that hands every request to
/// the device at once (the linux and hwsim backends do: their `cancel` never finds a
/// packet to take back): at most `depth` requests are with the device, the rest wait
/// here, where `cancel` can still take them back (their confirmation says
/// `Dropped(Cancelled)`, no attempt).
struct UserQueue<B: Backend> {
    inner: Interface<B>,
    depth: usize,
    queue: VecDeque<Held>,
    cancelled: VecDeque<Confirmation>,
}

impl<B: Backend> UserQueue<B> {
    fn pump(&mut self) -> Result<(), sdmac_api::ApiError> {
        while self.inner.unconfirmed() < self.depth {
            let Some(h) = self.queue.pop_front() else { break };
            let body = if h.frame { Body::Frame(&h.bytes) } else { Body::Payload(&h.bytes) };
            self.inner.data_req_at(h.t1, h.id, body, h.ac, &h.attrs)?;
        }
        Ok(())
    }
}

impl<B: Backend> Backend for UserQueue<B> {
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), sdmac_api::ApiError> {
        let frame = matches!(body, Body::Frame(_));
        self.queue.push_back(Held {
            id,
            bytes: body.bytes().to_vec(),
            frame,
            ac,
            attrs: *attrs,
            t1,
        });
        self.pump()
    }
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, sdmac_api::ApiError> {
        if let Some(c) = self.cancelled.pop_front() {
            return Ok(Some(c));
        }
        self.pump()?;
        let c = self.inner.data_con(wait)?;
        self.pump()?;
        Ok(c)
    }
    fn cancel(&mut self, id: u64) -> Result<bool, sdmac_api::ApiError> {
        let Some(k) = self.queue.iter().position(|h| h.id == id) else {
            return self.inner.cancel(id);
        };
        let h = self.queue.remove(k).expect("found");
        // The MPDU's length as the device would send it: header (24), LLC/SNAP (8)
        // and FCS (4) around a payload; a frame given whole plus its FCS.
        let len = h.bytes.len() as u32 + if h.frame { 4 } else { 36 };
        self.cancelled.push_back(Confirmation {
            id,
            status: Status::Dropped(DropReason::Cancelled),
            ac: h.ac,
            attempts: 0,
            rates: [(Rate::Ofdm6, 0); 4],
            n_rates: 0,
            len,
            truth: None,
            ts: Timestamps { t1: h.t1, ..Timestamps::default() },
        });
        Ok(true)
    }
    fn queue_len(&self, ac: Ac) -> usize {
        self.inner.queue_len(ac) + self.queue.iter().filter(|h| h.ac == ac).count()
    }
    fn unconfirmed(&self) -> usize {
        self.inner.unconfirmed() + self.queue.len() + self.cancelled.len()
    }
    fn event_fd(&mut self) -> Option<RawFd> {
        // Cancelled requests' confirmations would not wake it.
        None
    }
    sdmac_api::forward_backend!(
        |s| &mut s.inner, &s.inner;
        except data_req, data_con, cancel, queue_len, unconfirmed, event_fd
    );
}

/// `redundancy` on the backends named: two senders and two receivers, one of each per
/// channel.
pub(super) fn main_redundancy(a: &Args) -> Result<Outcome, String> {
    let mut text = String::new();
    let mut push = |l: String| {
        text.push_str(&l);
        text.push('\n');
    };
    let base = {
        let mut o = OpenOptions::default();
        if let Some(s) = &a.socket {
            o.hwsim.socket = Some(s.clone());
        }
        o
    };
    let open = |name: &str, k: usize| -> Result<Interface<AnyBackend>, String> {
        let mut o = base.clone();
        if let Some(&f) = a.freqs.get(k) {
            o.linux.freq_mhz = Some(f);
        }
        open_named(name, &o)
    };
    let mut tx = Vec::new();
    let mut rx = Vec::new();
    let mut dst = Vec::new();
    let mut chans = Vec::new();
    for k in 0..2 {
        let (sn, rn) = (&a.senders[k], &a.receivers[k]);
        let mut si = open(sn, k)?;
        let mut ri = open(rn, k)?;
        let saddr = address(&mut si, sn)?;
        let raddr = address(&mut ri, rn)?;
        let freq = |i: &mut Interface<AnyBackend>, n: &str| match i.get("frequency", Scope::Adapter)
        {
            Ok(Value::Int(f)) => Ok(f),
            Ok(v) => Err(format!("{n}: frequency is {v}, not a number")),
            Err(e) => Err(format!("{n}: reading its frequency: {e}")),
        };
        let (fs, fr) = (freq(&mut si, sn)?, freq(&mut ri, rn)?);
        if fs != fr {
            return Err(format!(
                "{sn} is on {fs} MHz but {rn} on {fr} MHz: a pair shares its channel"
            ));
        }
        push(format!("channel {}: {sn} ({saddr}) -> {rn} ({raddr}) on {fs} MHz", k + 1));
        chans.push(json!({"sender": sn, "receiver": rn, "sender_address": saddr.to_string(),
                          "receiver_address": raddr.to_string(), "freq_mhz": fs}));
        dst.push(raddr);
        tx.push(si);
        rx.push(ri);
    }
    let phy = phy_of(&mut tx[0], &a.senders[0])?;
    let tries = a.tries.unwrap_or(2);
    let path = base.hwsim.socket_path();
    let mut losses = Vec::new();
    if a.senders.iter().chain(&a.receivers).all(|n| n.starts_with("hwsim:")) {
        let mut c = Client::connect(&path)
            .map_err(|e| format!("the medium daemon's control socket {}: {e}", path.display()))?;
        for k in 0..2 {
            let saddr = address(&mut tx[k], &a.senders[k])?;
            let l = c.get_link(saddr, dst[k]).map_err(|e| {
                format!("reading the link {saddr} -> {} from the daemon: {e}", dst[k])
            })?;
            push(format!(
                "channel {}: error probability {} (the medium daemon's, read on its control socket)",
                k + 1,
                l.error_prob
            ));
            losses.push(l.error_prob);
        }
    }
    push(format!(
        "{} packets of {} B per mode at rate {} ({} tries), at most {} in flight; one request at a time with each sender's radio, the rest in a queue in user space that can take a copy back",
        a.packets, a.payload, a.rate, tries, a.window
    ));
    let mut tx: Vec<Interface<UserQueue<AnyBackend>>> = tx
        .into_iter()
        .map(|i| {
            Interface::new(UserQueue {
                inner: i,
                depth: 1,
                queue: VecDeque::new(),
                cancelled: VecDeque::new(),
            })
        })
        .collect();
    let mut modes = Vec::new();
    for mode in [Mode::OneChannel, Mode::TwoChannels, Mode::TwoChannelsCancel] {
        let cfg = SenderConfig {
            dst: dst.clone(),
            rates: Some(RateSeries::single(a.rate, tries)),
            ac: Ac::Be,
            mode,
            phy: phy.clone(),
        };
        let mut sender = RedundantSender::new(tx, cfg).map_err(|e| e.to_string())?;
        let mut receiver = RedundantReceiver::new(rx).map_err(|e| e.to_string())?;
        let plan = RunPlan {
            packets: a.packets as u32,
            payload_len: a.payload,
            spacing: Span::ZERO,
            window: a.window,
            stall_ms: 20_000,
        };
        let t0 = sender.now();
        let rep = redundancy::run(&mut sender, &mut receiver, &plan)
            .map_err(|e| format!("mode {}: {e}", mode.name()))?;
        let took = sender.now().saturating_since(t0);
        tx = sender.into_interfaces();
        rx = receiver.into_interfaces();
        let ms = |ns: u64| ns as f64 / 1e6;
        let st = rep.sender;
        push(format!(
            "{}: sent {}, delivered {}, lost {} ({:.1} %); latency p50 {:.2} ms, p95 {:.2} ms (request to the end on air of the first copy received); duplicates dropped {}, passed up {}; copies {}, on air {}, cancelled {}, too late to cancel {}; airtime saved {:.1} µs; run {:.0} ms",
            mode.name(), rep.sent, rep.delivered, rep.lost,
            100.0 * rep.lost as f64 / rep.sent.max(1) as f64,
            ms(rep.latency.p50), ms(rep.latency.p95),
            rep.duplicates_dropped, rep.duplicates_delivered,
            st.copies, st.copies_on_air, st.copies_cancelled, st.cancel_too_late,
            st.airtime_saved_ns as f64 / 1e3,
            took.as_us_f64() / 1e3
        ));
        modes.push(json!({
            "mode": mode.name(), "sent": rep.sent, "delivered": rep.delivered, "lost": rep.lost,
            "latency_p50_ns": rep.latency.p50, "latency_p95_ns": rep.latency.p95,
            "ack_latency_p50_ns": rep.ack_latency.p50, "ack_latency_p95_ns": rep.ack_latency.p95,
            "duplicates_dropped": rep.duplicates_dropped,
            "duplicates_delivered": rep.duplicates_delivered,
            "acked": st.acked, "unacked": st.unacked, "copies": st.copies,
            "copies_on_air": st.copies_on_air, "attempts_on_air": st.attempts_on_air,
            "copies_cancelled": st.copies_cancelled, "cancel_too_late": st.cancel_too_late,
            "airtime_saved_ns": st.airtime_saved_ns, "run_ms": took.as_us_f64() / 1e3,
        }));
        // Let copies still on air at the end land before the next mode's receiver.
        std::thread::sleep(Duration::from_millis(300));
        for i in rx.iter_mut() {
            let mut buf = Vec::new();
            while i.data_ind(&mut buf, Wait::NoWait).map_err(|e| e.to_string())?.is_some() {}
        }
    }
    let backend = a.senders.iter().chain(&a.receivers).cloned().collect::<Vec<_>>().join(",");
    let json = json!({
        "overlay": "redundancy", "backend": backend, "channels": chans,
        "error_prob": losses,
        "params": {"packets": a.packets, "payload": a.payload, "rate": a.rate.to_string(),
                   "window": a.window, "tries": tries, "device_depth": 1},
        "modes": modes,
    });
    Ok(Outcome { text, json })
}
