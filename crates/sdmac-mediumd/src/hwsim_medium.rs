//! The medium behind the daemon, without sockets: frames the kernel hands over go in,
//! TX statuses and deliveries come out, decided by sdmac's engine.
//!
//! Radios are known by their hwsim address (the one the kernel uses on the wire,
//! `42:…`: the interface address with bit 0x40 of the first octet set) and by the
//! interface addresses seen in their frames (`02:…`). Each channel (centre frequency)
//! is its own medium, so different channels never share airtime. A radio becomes a
//! station of a channel's medium when it first transmits there, or when the medium is
//! created if the configuration lists it.

use sdmac_frame::ieee80211::{Frame, FrameType};
use sdmac_medium::{
    Ac, Dest, FrameKind, LinkOverride, Medium, MediumConfig, RateSeries, RxIndication, Sink, StationConfig, StationId, Time,
    TxReport, TxRequest,
};
use sdmac_phy::error_model::ErrorModel;
use sdmac_phy::propagation::PathLoss;
use sdmac_phy::{Phy, Rate, Standard};
use std::collections::HashMap;

/// A MAC address.
pub type Mac = [u8; 6];

/// The hwsim (wire) address of a radio whose interface address is `a`.
pub fn hw_addr_of(a: Mac) -> Mac {
    let mut h = a;
    h[0] |= 0x40;
    h
}

/// What a frame's status must repeat of the kernel's request: its rate indices and
/// flags. Opaque to the medium, carried with the frame so nothing else has to look
/// the frame up again when its status is written.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusEcho {
    /// The rate index of each entry of the frame's rate series (−1 ends it).
    pub rate_idx: [i8; 4],
    /// The frame's flags.
    pub flags: u32,
}

/// A frame the kernel asks the medium to send.
#[derive(Clone, Debug)]
pub struct KernelFrame<'a> {
    /// The transmitting radio (hwsim address).
    pub transmitter: Mac,
    /// The 802.11 frame (no FCS).
    pub frame: &'a [u8],
    /// The kernel asked for no ACK.
    pub no_ack: bool,
    /// Channel (MHz).
    pub freq: u32,
    /// The frame's rate series (rate, tries), as many entries as the kernel gave.
    pub rates: Vec<(Rate, u8)>,
    /// The kernel's cookie, echoed in the status.
    pub cookie: u64,
    /// Repeated in the status.
    pub echo: StatusEcho,
}

/// What the medium tells the kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The outcome of a frame (TX_INFO_FRAME).
    TxStatus {
        /// The transmitting radio.
        transmitter: Mac,
        /// The kernel's cookie.
        cookie: u64,
        /// Acknowledged (or, for no-ack frames, sent).
        acked: bool,
        /// Signal at the destination (dBm), or the noise floor when unknown.
        signal_dbm: i32,
        /// Attempts made per entry of the frame's rate series.
        attempts: Vec<u8>,
        /// What the kernel's frame asked, repeated.
        echo: StatusEcho,
    },
    /// A frame on air, for a capture (only when capturing).
    Air {
        /// Start on air (ns on the daemon's clock).
        t_start: Time,
        /// Channel (MHz).
        freq: u32,
        /// Rate.
        rate: Rate,
        /// The frame (no FCS).
        frame: Vec<u8>,
    },
    /// A copy of a frame received by a radio (FRAME to the kernel).
    Deliver {
        /// The receiving radio (hwsim address).
        receiver: Mac,
        /// The frame (no FCS).
        frame: Vec<u8>,
        /// Rate it was sent at.
        rate: Rate,
        /// Received power (dBm).
        signal_dbm: i32,
        /// Channel (MHz).
        freq: u32,
    },
}

/// How links are modelled.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkModel {
    /// Every pair at this SNR (dB), with per-pair overrides by interface address.
    Snr {
        /// Default SNR (dB).
        default_snr_db: f64,
        /// (from, to, SNR dB).
        links: Vec<(Mac, Mac, f64)>,
    },
    /// Every pair with this loss probability (strong signal), with per-pair overrides.
    Prob {
        /// Default probability.
        default_prob: f64,
        /// (from, to, probability).
        links: Vec<(Mac, Mac, f64)>,
    },
    /// Positions and a propagation model.
    PathLoss {
        /// The model.
        model: PathLoss,
        /// Position (m) per interface address.
        positions: Vec<(Mac, [f64; 3])>,
        /// Transmit power (dBm) per interface address.
        tx_power_dbm: Vec<(Mac, f64)>,
    },
}

/// Set-up of the medium.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Interface addresses of the radios the configuration lists, in order.
    pub interfaces: Vec<Mac>,
    /// Link model.
    pub model: LinkModel,
    /// Noise floor (dBm).
    pub noise_floor_dbm: f64,
    /// Seed.
    pub seed: u64,
    /// Error model: a wmediumd PER table (`-x`) instead of the NIST model.
    pub per_table: Option<std::sync::Arc<sdmac_phy::error_model::PerTable>>,
    /// Report every frame on air (`Output::Air`), for a capture.
    pub capture: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            interfaces: Vec::new(),
            model: LinkModel::Snr { default_snr_db: 30.0, links: Vec::new() },
            noise_floor_dbm: -91.0,
            seed: 1,
            per_table: None,
            capture: false,
        }
    }
}

/// A frame on its way through a medium.
struct InFlight {
    transmitter: Mac,
    cookie: u64,
    bytes: Vec<u8>,
    n_rates: usize,
    echo: StatusEcho,
}

/// One channel's medium.
struct Channel {
    freq: u32,
    medium: Medium,
    /// Station → radio index.
    radio_of: Vec<usize>,
    in_flight: HashMap<u64, InFlight>,
}

/// A runtime link setting.
#[derive(Copy, Clone, Debug)]
enum LinkKnob {
    Snr(f64),
    Prob(f64),
}

/// A radio.
struct Radio {
    hw: Mac,
    /// Deleted through the control socket.
    deleted: bool,
    /// Interface addresses.
    addrs: Vec<Mac>,
    /// Its station in each channel's medium.
    station: HashMap<u32, StationId>,
}

/// Counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Frames from the kernel.
    pub frames_in: u64,
    /// Statuses sent.
    pub statuses: u64,
    /// Statuses that said acked.
    pub acked: u64,
    /// Deliveries.
    pub deliveries: u64,
    /// Frames refused (malformed, or an invalid rate) and answered as not acked.
    pub refused: u64,
}

/// The medium of the daemon: every channel, every radio.
pub struct HwsimMedium {
    setup: Setup,
    channels: Vec<Channel>,
    radios: Vec<Radio>,
    next_handle: u64,
    counters: Counters,
}

fn phy_for(freq: u32) -> Phy {
    if freq >= 4900 {
        Phy::new(Standard::Dot11a)
    } else {
        Phy::new(Standard::Dot11g)
    }
}

/// The access category of a frame: QoS data by its TID, management → VO, other → BE.
pub fn ac_of(frame: &[u8]) -> Ac {
    let Ok(f) = Frame::new_checked(frame) else { return Ac::Be };
    match f.frame_control().frame_type() {
        FrameType::Management => Ac::Vo,
        FrameType::Data => f.qos_control().map_or(Ac::Be, |q| Ac::from_tid(q.tid)),
        _ => Ac::Be,
    }
}

struct Collector<'a> {
    out: &'a mut Vec<Output>,
    ch: &'a mut HashMap<u64, InFlight>,
    radio_of: &'a [usize],
    radios: &'a [Radio],
    freq: u32,
    counters: &'a mut Counters,
    signal_to: Vec<(u64, i32)>,
    capture: bool,
}

impl Sink for Collector<'_> {
    fn wants_air(&self) -> bool {
        self.capture
    }

    fn air(&mut self, r: &sdmac_medium::AirRecord) {
        let frame = match r.kind {
            FrameKind::Data => match self.ch.get(&r.handle) {
                Some(f) => {
                    let mut b = f.bytes.clone();
                    if r.retry && b.len() > 1 {
                        b[1] |= 0x08;
                    }
                    b
                }
                None => return,
            },
            FrameKind::Ack => {
                let ra = match r.dst {
                    Dest::Station(s) => self.radios[self.radio_of[s as usize]].addrs.first().copied().unwrap_or(self.radios[self.radio_of[s as usize]].hw),
                    _ => return,
                };
                let mut b = vec![0u8; 10];
                if sdmac_frame::ieee80211::write_ack_frame(&mut b, sdmac_frame::MacAddress(ra), r.duration_us, false).is_err() {
                    return;
                }
                b
            }
            FrameKind::Beacon => return,
        };
        self.out.push(Output::Air { t_start: r.t_start, freq: self.freq, rate: r.rate, frame });
    }

    fn tx_done(&mut self, r: &TxReport) {
        let Some(f) = self.ch.remove(&r.handle) else { return };
        let mut attempts = vec![0u8; f.n_rates];
        for (k, (_, n)) in r.rates[..r.n_rates as usize].iter().enumerate() {
            if k < attempts.len() {
                attempts[k] = *n;
            }
        }
        let acked = matches!(r.outcome, sdmac_medium::Outcome::Acked) || (matches!(r.outcome, sdmac_medium::Outcome::NoAck) && r.attempts > 0);
        let signal_dbm = self.signal_to.iter().find(|s| s.0 == r.handle).map_or(-91, |s| s.1);
        self.signal_to.retain(|s| s.0 != r.handle);
        self.counters.statuses += 1;
        if acked {
            self.counters.acked += 1;
        }
        self.out.push(Output::TxStatus { transmitter: f.transmitter, cookie: f.cookie, acked, signal_dbm, attempts, echo: f.echo });
    }

    fn rx(&mut self, ind: &RxIndication) {
        if ind.kind != FrameKind::Data || ind.duplicate {
            return;
        }
        let Some(f) = self.ch.get(&ind.handle) else { return };
        let signal = ind.signal_dbm.round() as i32;
        if ind.unicast {
            self.signal_to.push((ind.handle, signal));
        }
        let receiver = self.radios[self.radio_of[ind.station as usize]].hw;
        self.counters.deliveries += 1;
        self.out.push(Output::Deliver { receiver, frame: f.bytes.clone(), rate: ind.rate, signal_dbm: signal, freq: self.freq });
    }
}

impl HwsimMedium {
    /// A medium with no channel yet.
    pub fn new(setup: Setup) -> HwsimMedium {
        let mut m = HwsimMedium { setup, channels: Vec::new(), radios: Vec::new(), next_handle: 1, counters: Counters::default() };
        for a in m.setup.interfaces.clone() {
            let r = m.radio_for(hw_addr_of(a));
            m.radios[r].addrs.push(a);
        }
        m
    }

    /// Counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Channels (MHz) with a medium.
    pub fn channels(&self) -> Vec<u32> {
        self.channels.iter().map(|c| c.freq).collect()
    }

    /// The radio with hwsim address `hw`, created if new.
    fn radio_for(&mut self, hw: Mac) -> usize {
        if let Some(i) = self.radios.iter().position(|r| r.hw == hw) {
            return i;
        }
        self.radios.push(Radio { hw, deleted: false, addrs: Vec::new(), station: HashMap::new() });
        self.radios.len() - 1
    }

    /// Records that radio `hw` has interface address `addr` (ADD_MAC_ADDR, or seen in
    /// a frame).
    pub fn add_address(&mut self, hw: Mac, addr: Mac) {
        let r = self.radio_for(hw);
        if !self.radios[r].addrs.contains(&addr) {
            self.radios[r].addrs.push(addr);
        }
    }

    /// The radio that has interface or hwsim address `a`.
    fn radio_by_addr(&self, a: Mac) -> Option<usize> {
        self.radios.iter().position(|r| r.hw == a || r.addrs.contains(&a))
    }

    /// The configured position and power of radio `r`.
    fn placement(&self, r: usize) -> ([f64; 3], Option<f64>) {
        if let LinkModel::PathLoss { positions, tx_power_dbm, .. } = &self.setup.model {
            let addrs = &self.radios[r].addrs;
            let hw = self.radios[r].hw;
            let find = |a: &Mac| addrs.contains(a) || hw_addr_of(*a) == hw;
            let pos = positions.iter().find(|(a, _)| find(a)).map_or([0.0; 3], |p| p.1);
            let pw = tx_power_dbm.iter().find(|(a, _)| find(a)).map(|p| p.1);
            return (pos, pw);
        }
        ([0.0; 3], None)
    }

    fn channel_index(&mut self, now: Time, freq: u32) -> usize {
        if let Some(i) = self.channels.iter().position(|c| c.freq == freq) {
            return i;
        }
        let phy = phy_for(freq);
        let mut cfg = MediumConfig::new(phy);
        cfg.freq_mhz = freq;
        cfg.seed = self.setup.seed ^ freq as u64;
        cfg.error_model = match &self.setup.per_table {
            Some(t) => ErrorModel::Table(t.clone()),
            None => ErrorModel::Nist,
        };
        if let LinkModel::PathLoss { model, .. } = &self.setup.model {
            cfg.path_loss = model.clone();
        }
        let mut medium = Medium::new(cfg);
        medium.advance(now, &mut sdmac_medium::Collect::default());
        self.channels.push(Channel { freq, medium, radio_of: Vec::new(), in_flight: HashMap::new() });
        let c = self.channels.len() - 1;
        // Radios of the configuration are on every channel from the start.
        for r in 0..self.radios.len() {
            if !self.radios[r].addrs.is_empty() && self.setup.interfaces.iter().any(|a| self.radios[r].addrs.contains(a)) {
                self.station_for(c, r);
            }
        }
        c
    }

    /// Radio `r`'s station in channel `c`, added if new (with its links).
    fn station_for(&mut self, c: usize, r: usize) -> StationId {
        let freq = self.channels[c].freq;
        if let Some(&s) = self.radios[r].station.get(&freq) {
            return s;
        }
        let (pos, power) = self.placement(r);
        let phy = self.channels[c].medium.phy().clone();
        let mut sc = StationConfig::new(&phy, self.radios[r].hw, pos).with_qos(&phy);
        sc.noise_floor_dbm = self.setup.noise_floor_dbm;
        if let Some(p) = power {
            sc.tx_power_dbm = p;
        }
        let s = self.channels[c].medium.add_station(sc);
        self.channels[c].radio_of.push(r);
        self.radios[r].station.insert(freq, s);
        // Links to and from every station already there.
        let others: Vec<(StationId, usize)> = self.channels[c].radio_of.iter().enumerate().map(|(s2, &r2)| (s2 as StationId, r2)).collect();
        for (s2, r2) in others {
            if s2 == s {
                continue;
            }
            if let Some(o) = self.link_override(r, r2) {
                self.channels[c].medium.set_link(s, s2, o);
            }
            if let Some(o) = self.link_override(r2, r) {
                self.channels[c].medium.set_link(s2, s, o);
            }
        }
        s
    }

    /// The configured link from radio `a` to radio `b`.
    fn link_override(&self, a: usize, b: usize) -> Option<LinkOverride> {
        let is = |m: &Mac, r: usize| self.radios[r].addrs.contains(m) || self.radios[r].hw == *m || hw_addr_of(*m) == self.radios[r].hw;
        match &self.setup.model {
            LinkModel::Snr { default_snr_db, links } => {
                let snr = links.iter().find(|(f, t, _)| is(f, a) && is(t, b)).map_or(*default_snr_db, |l| l.2);
                Some(LinkOverride { snr_db: Some(snr), ..LinkOverride::default() })
            }
            LinkModel::Prob { default_prob, links } => {
                let p = links.iter().find(|(f, t, _)| is(f, a) && is(t, b)).map_or(*default_prob, |l| l.2);
                Some(LinkOverride { snr_db: Some(30.0), error_prob: Some(p.clamp(0.0, 1.0)), ..LinkOverride::default() })
            }
            LinkModel::PathLoss { .. } => None,
        }
    }

    /// A frame from the kernel at `now` (ns on the daemon's clock). Outputs that are
    /// due at once (a refusal) are appended to `out`; the rest come from `advance`.
    pub fn on_frame(&mut self, now: Time, f: KernelFrame<'_>, out: &mut Vec<Output>) {
        self.counters.frames_in += 1;
        let refuse = |out: &mut Vec<Output>, counters: &mut Counters| {
            counters.refused += 1;
            counters.statuses += 1;
            out.push(Output::TxStatus {
                transmitter: f.transmitter,
                cookie: f.cookie,
                acked: false,
                signal_dbm: -91,
                attempts: vec![0; f.rates.len().max(1)],
                echo: f.echo,
            });
        };
        let Ok(frame) = Frame::new_checked(f.frame) else {
            refuse(out, &mut self.counters);
            return;
        };
        let Some(rates) = RateSeries::new(&f.rates) else {
            refuse(out, &mut self.counters);
            return;
        };
        let r = self.radio_for(f.transmitter);
        if let Some(a2) = frame.addr2() {
            self.add_address(f.transmitter, a2.0);
        }
        let c = self.channel_index(now, f.freq);
        self.advance_channel(c, now, out);
        let s = self.station_for(c, r);
        let a1 = frame.addr1().0;
        let dst = if a1[0] & 1 == 1 {
            Dest::Broadcast
        } else {
            match self.radio_by_addr(a1) {
                Some(r2) => Dest::Station(self.station_for(c, r2)),
                None => Dest::Unknown,
            }
        };
        let handle = self.next_handle;
        self.next_handle += 1;
        let req = TxRequest {
            handle,
            dst,
            len: f.frame.len() as u32 + 4,
            ac: ac_of(f.frame),
            rates: Some(rates),
            no_ack: f.no_ack || dst == Dest::Broadcast,
        };
        match self.channels[c].medium.enqueue(now, s, req) {
            Ok(()) => {
                self.channels[c].in_flight.insert(handle, InFlight { transmitter: f.transmitter, cookie: f.cookie, bytes: f.frame.to_vec(), n_rates: f.rates.len(), echo: f.echo });
            }
            Err(_) => refuse(out, &mut self.counters),
        }
    }

    fn advance_channel(&mut self, c: usize, now: Time, out: &mut Vec<Output>) {
        let ch = &mut self.channels[c];
        let mut col = Collector {
            out,
            ch: &mut ch.in_flight,
            radio_of: &ch.radio_of,
            radios: &self.radios,
            freq: ch.freq,
            counters: &mut self.counters,
            signal_to: Vec::new(),
            capture: self.setup.capture,
        };
        ch.medium.advance(now.max(ch.medium.now()), &mut col);
    }

    /// Runs every channel up to `now`.
    pub fn advance(&mut self, now: Time, out: &mut Vec<Output>) {
        for c in 0..self.channels.len() {
            self.advance_channel(c, now, out);
        }
    }

    /// When the next event of any channel is due.
    pub fn next_event_time(&self) -> Option<Time> {
        self.channels.iter().filter_map(|c| c.medium.next_event_time()).min()
    }

    /// Answers every frame still in flight as not acknowledged (on shutdown).
    pub fn flush(&mut self, out: &mut Vec<Output>) {
        for ch in &mut self.channels {
            for (_, f) in ch.in_flight.drain() {
                self.counters.statuses += 1;
                out.push(Output::TxStatus {
                    transmitter: f.transmitter,
                    cookie: f.cookie,
                    acked: false,
                    signal_dbm: -91,
                    attempts: vec![0; f.n_rates.max(1)],
                    echo: f.echo,
                });
            }
        }
    }

    /// Applies `f` to every (channel, station of radio `a`, station of radio `b`)
    /// where both have a station.
    fn each_pair(&mut self, a: usize, b: usize, mut f: impl FnMut(&mut Medium, StationId, StationId)) {
        for ch in &mut self.channels {
            let (Some(&sa), Some(&sb)) = (self.radios[a].station.get(&ch.freq), self.radios[b].station.get(&ch.freq)) else { continue };
            f(&mut ch.medium, sa, sb);
        }
    }

    /// Registers a station by interface address (Mininet-WiFi's "add"); returns its
    /// id, or None if it exists already.
    pub fn add_station(&mut self, addr: Mac) -> Option<usize> {
        if self.radio_by_addr(addr).is_some_and(|r| !self.radios[r].deleted) {
            return None;
        }
        let r = self.radio_for(hw_addr_of(addr));
        let was_deleted = self.radios[r].deleted;
        self.radios[r].deleted = false;
        if !self.radios[r].addrs.contains(&addr) {
            self.radios[r].addrs.push(addr);
        }
        if was_deleted {
            // Back from a delete: its links are what the model says again.
            for other in 0..self.radios.len() {
                if other == r || self.radios[other].deleted {
                    continue;
                }
                let (fwd, back) = (self.link_override(r, other).unwrap_or_default(), self.link_override(other, r).unwrap_or_default());
                self.each_pair(r, other, |m, a, b| {
                    m.set_link(a, b, fwd);
                    m.set_link(b, a, back);
                });
            }
        }
        Some(r)
    }

    /// The id of the station with interface or hwsim address `addr`.
    pub fn station_id(&self, addr: Mac) -> Option<usize> {
        self.radio_by_addr(addr).filter(|&r| !self.radios[r].deleted)
    }

    /// Deletes a station: it stops hearing and being heard (its frames are still
    /// answered, as not acknowledged). False if there is no such station.
    pub fn delete_station(&mut self, id: usize) -> bool {
        if id >= self.radios.len() || self.radios[id].deleted {
            return false;
        }
        self.radios[id].deleted = true;
        let cut = LinkOverride { error_prob: Some(1.0), preamble_error_prob: Some(1.0), ..LinkOverride::default() };
        for other in 0..self.radios.len() {
            if other != id {
                self.each_pair(id, other, |m, a, b| {
                    m.set_link(a, b, cut);
                    m.set_link(b, a, cut);
                });
            }
        }
        true
    }

    /// Sets the SNR of the link between stations `a` and `b`, both directions.
    pub fn set_snr(&mut self, a: usize, b: usize, snr_db: f64) {
        self.remember_link(a, b, LinkKnob::Snr(snr_db));
        self.each_pair(a, b, |m, x, y| {
            m.set_link(x, y, LinkOverride { snr_db: Some(snr_db), ..LinkOverride::default() });
            m.set_link(y, x, LinkOverride { snr_db: Some(snr_db), ..LinkOverride::default() });
        });
    }

    /// Sets the error probability of the link from `a` to `b`.
    pub fn set_error_prob(&mut self, a: usize, b: usize, p: f64) {
        let p = p.clamp(0.0, 1.0);
        self.remember_link(a, b, LinkKnob::Prob(p));
        let snr = self.current_snr(a, b);
        self.each_pair(a, b, |m, x, y| m.set_link(x, y, LinkOverride { snr_db: Some(snr), error_prob: Some(p), ..LinkOverride::default() }));
    }

    fn current_snr(&self, a: usize, b: usize) -> f64 {
        let is = |m: &Mac, r: usize| self.radios[r].addrs.contains(m) || hw_addr_of(*m) == self.radios[r].hw;
        match &self.setup.model {
            LinkModel::Snr { default_snr_db, links } => links.iter().find(|(f, t, _)| is(f, a) && is(t, b)).map_or(*default_snr_db, |l| l.2),
            _ => 30.0,
        }
    }

    /// Keeps a runtime link change in the set-up, so media created later have it.
    fn remember_link(&mut self, a: usize, b: usize, knob: LinkKnob) {
        let (Some(&ma), Some(&mb)) = (self.radios[a].addrs.first(), self.radios[b].addrs.first()) else { return };
        match (&mut self.setup.model, knob) {
            (LinkModel::Snr { links, .. }, LinkKnob::Snr(v)) => {
                links.retain(|l| !((l.0 == ma && l.1 == mb) || (l.0 == mb && l.1 == ma)));
                links.push((ma, mb, v));
                links.push((mb, ma, v));
            }
            (LinkModel::Prob { links, .. }, LinkKnob::Prob(v)) => {
                links.retain(|l| !(l.0 == ma && l.1 == mb));
                links.push((ma, mb, v));
            }
            _ => {}
        }
    }

    /// Moves station `id` (path-loss model); only its own links are recomputed.
    pub fn set_position(&mut self, id: usize, pos: [f64; 3]) {
        self.set_placement(id, |positions, _| positions.push(pos));
        for ch in &mut self.channels {
            if let Some(&s) = self.radios[id].station.get(&ch.freq) {
                ch.medium.set_position(s, pos);
            }
        }
    }

    /// Sets station `id`'s transmit power (dBm).
    pub fn set_tx_power(&mut self, id: usize, dbm: f64) {
        self.set_placement(id, |_, powers| powers.push(dbm));
        for ch in &mut self.channels {
            if let Some(&s) = self.radios[id].station.get(&ch.freq) {
                ch.medium.set_tx_power(s, dbm);
            }
        }
    }

    /// Sets station `id`'s antenna gain (dBi).
    pub fn set_antenna_gain(&mut self, id: usize, dbi: f64) {
        for ch in &mut self.channels {
            if let Some(&s) = self.radios[id].station.get(&ch.freq) {
                ch.medium.set_antenna_gain(s, dbi);
            }
        }
    }

    /// The position of station `id` (path-loss model), if known.
    pub fn position(&self, id: usize) -> Option<[f64; 3]> {
        let (pos, _) = self.placement(id);
        Some(pos)
    }

    /// Records a position or power in the set-up (path-loss model).
    fn set_placement(&mut self, id: usize, f: impl FnOnce(&mut Vec<[f64; 3]>, &mut Vec<f64>)) {
        let Some(&addr) = self.radios[id].addrs.first() else { return };
        if let LinkModel::PathLoss { positions, tx_power_dbm, .. } = &mut self.setup.model {
            let mut p = Vec::new();
            let mut w = Vec::new();
            f(&mut p, &mut w);
            if let Some(pos) = p.pop() {
                positions.retain(|x| x.0 != addr);
                positions.push((addr, pos));
            }
            if let Some(dbm) = w.pop() {
                tx_power_dbm.retain(|x| x.0 != addr);
                tx_power_dbm.push((addr, dbm));
            }
        }
    }

    /// Is the link model positions + propagation?
    pub fn is_path_loss(&self) -> bool {
        matches!(self.setup.model, LinkModel::PathLoss { .. })
    }

    /// Counters of each channel's medium: (MHz, engine statistics).
    pub fn medium_stats(&self) -> Vec<(u32, sdmac_medium::MediumStats)> {
        self.channels.iter().map(|c| (c.freq, c.medium.stats())).collect()
    }

    /// Frames in flight over all channels.
    pub fn in_flight(&self) -> usize {
        self.channels.iter().map(|c| c.in_flight.len()).sum()
    }
}
