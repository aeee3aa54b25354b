//! The medium behind the daemon, without sockets: frames the kernel hands over go in,
//! TX statuses and deliveries come out, decided by sdmac's engine.
//!
//! Radios are known by their hwsim address (the one the kernel uses on the wire,
//! `42:…`: the interface address with bit 0x40 of the first octet set) and by the
//! interface addresses seen in their frames (`02:…`).
//!
//! Radios belong to configured media (see [`crate::media`]): radios of different media
//! never hear each other. Inside a medium each channel (centre frequency) is its own
//! engine medium, so different channels never share airtime either. A radio becomes a
//! station of a channel's engine medium when it first transmits there or is sent to
//! there, or when that engine medium is created if the configuration lists the radio in
//! its medium. Stations of a path-loss medium with `directions` move every
//! `move_interval` (see [`crate::movement`]); a medium's `fading_coefficient` is the
//! engine's per-reception fading.

use crate::channel_rates::phy_for;
use crate::collector::Collector;
use crate::media::{MediumId, MediumState};
use crate::movement::moved;
use crate::radio_table::{Radio, RadioIndex};
use crate::status_retry::{RefusedStatus, StatusRetries};
use sdmac_control::ext::{TruthCause, TruthRecord};
use sdmac_medium::{LinkOverride, Medium, MediumConfig, StationConfig, StationId, Time};
use sdmac_phy::error_model::ErrorModel;
use std::collections::HashMap;

pub use crate::address::{hw_addr_of, Mac};
use crate::frame_pool::FramePool;
pub use crate::link_model::LinkModel;
pub(crate) use crate::medium_io::InFlight;
pub use crate::medium_io::{
    ac_of, AttemptCounts, Counters, KernelFrame, Output, RateEntries, SharedFrame, StatusEcho,
    UNHEARD_SIGNAL_DBM,
};
pub use crate::medium_setup::Setup;

/// One channel of one medium: an engine medium.
pub(crate) struct Channel {
    /// The medium (index into the media) it belongs to.
    pub within: usize,
    pub freq: u32,
    pub engine: Medium,
    /// Station → radio index.
    pub radio_of: Vec<usize>,
    pub in_flight: HashMap<u64, InFlight>,
}

/// What a frame teaches the radio table (see [`HwsimMedium::learn_from_frame`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Learned {
    /// The id of the medium the transmitter is in: its frame goes to that medium's
    /// engine medium of the frame's channel.
    pub medium: MediumId,
    /// The interface address the frame was sent from (its second address).
    pub addr: Option<Mac>,
    /// The radio is new, or the address is new for it.
    pub changed: bool,
    /// The radio sent on another channel before (or never): see [`HwsimMedium::set_tuned`].
    pub retuned: bool,
}

/// The medium of the daemon: every configured medium, channel and radio.
pub struct HwsimMedium {
    pub(crate) setup: Setup,
    pub(crate) media: Vec<MediumState>,
    pub(crate) channels: Vec<Channel>,
    pub(crate) radios: Vec<Radio>,
    pub(crate) index: RadioIndex,
    pub(crate) next_handle: u64,
    pub(crate) counters: Counters,
    /// Truth records of the frames answered since they were last taken; None while
    /// nobody subscribes ([`HwsimMedium::set_truth`]).
    pub(crate) truth: Option<Vec<TruthRecord>>,
    /// TX statuses the kernel refused, to send again.
    retries: StatusRetries,
    /// The buffers frames in flight and their deliveries are kept in.
    pub(crate) frames: FramePool,
}

/// A radio last sent on another channel than `freq`.
fn radio_tuned_elsewhere(tuned: Option<u32>, freq: u32) -> bool {
    tuned.is_some_and(|f| f != freq)
}

impl HwsimMedium {
    /// A medium with no channel yet.
    pub fn new(setup: Setup) -> HwsimMedium {
        let media = setup.media().into_iter().map(MediumState::new).collect();
        let mut m = HwsimMedium {
            setup,
            media,
            channels: Vec::new(),
            radios: Vec::new(),
            index: RadioIndex::default(),
            next_handle: 1,
            counters: Counters::default(),
            truth: None,
            retries: StatusRetries::default(),
            frames: FramePool::new(),
        };
        // Each listed address gets a radio at once (so that it hears frames before it
        // sends), under the hwsim address an interface with that permanent address
        // would have: a guess, until the kernel shows which radio has the address
        // (radio_binding.rs).
        let listed: Vec<Mac> = m.media.iter().flat_map(|x| x.setup.interfaces.clone()).collect();
        for a in listed {
            if m.radios.iter().any(|r| r.listed == Some(a)) {
                continue;
            }
            let r = m.radio_for(hw_addr_of(a));
            m.give_addr(r, a);
        }
        m
    }

    /// Counters so far.
    pub fn counters(&self) -> Counters {
        Counters {
            status_retries: self.retries.retries,
            statuses_refused: self.retries.given_up,
            ..self.counters
        }
    }

    /// Channels (MHz) with an engine medium, one entry per (medium, channel).
    pub fn channels(&self) -> Vec<u32> {
        self.channels.iter().map(|c| c.freq).collect()
    }

    /// (medium id, channel MHz) of every engine medium.
    pub fn channels_by_medium(&self) -> Vec<(MediumId, u32)> {
        self.channels.iter().map(|c| (self.media[c.within].setup.id, c.freq)).collect()
    }

    /// The ids of the media, the first (default) one first.
    pub fn media(&self) -> Vec<MediumId> {
        self.media.iter().map(|m| m.setup.id).collect()
    }

    /// The radio with hwsim address `hw`, created if new: in the medium that lists it
    /// (its position, power and direction from there), else in the first medium.
    pub(crate) fn radio_for(&mut self, hw: Mac) -> usize {
        if let Some(i) = self.index.by_hw(hw) {
            return i;
        }
        let probe = Radio::new(hw, 0);
        // A listed address no radio carries yet whose hwsim address would be `hw`.
        let taken = |a: &Mac| self.radios.iter().any(|r| r.listed == Some(*a));
        let listing = self.media.iter().enumerate().find_map(|(m, x)| {
            x.setup.interfaces.iter().find(|a| probe.is(a) && !taken(a)).map(|a| (m, *a))
        });
        let mut radio = Radio::new(hw, listing.map_or(0, |l| l.0));
        radio.everywhere = listing.is_some();
        radio.listed = listing.map(|l| l.1);
        let medium = &self.media[radio.medium].setup;
        let mine = |a: &Mac| radio.listed == Some(*a);
        let (pos, power) = medium.model.placement(mine);
        let direction = medium.movement.as_ref().and_then(|mv| mv.direction_of(mine));
        radio.pos = pos;
        radio.power_dbm = power;
        radio.direction = direction;
        self.radios.push(radio);
        let r = self.radios.len() - 1;
        self.index.add_radio(r, hw);
        r
    }

    /// Records that radio `hw` has interface address `addr` (ADD_MAC_ADDR, or seen in
    /// a frame).
    pub fn add_address(&mut self, hw: Mac, addr: Mac) {
        self.learn_radio(hw, Some(addr));
    }

    /// The radio that has interface or hwsim address `a`.
    pub(crate) fn radio_by_addr(&self, a: Mac) -> Option<usize> {
        self.index.by_addr(a)
    }

    /// The engine medium of channel `freq` in medium `within`, created if new (with a
    /// station for every radio of that medium that joins every channel).
    pub(crate) fn channel_index(&mut self, now: Time, within: usize, freq: u32) -> usize {
        if let Some(i) = self.channels.iter().position(|c| c.within == within && c.freq == freq) {
            return i;
        }
        let medium = &self.media[within].setup;
        let phy = phy_for(freq, self.setup.custom_phy.as_ref());
        let mut cfg = MediumConfig::new(phy);
        cfg.freq_mhz = freq;
        // The first medium keeps the seed it always had; others get their own.
        cfg.seed = self.setup.seed ^ freq as u64 ^ ((within as u64) << 32);
        cfg.error_model = match &self.setup.per_table {
            Some(t) => ErrorModel::Table(t.clone()),
            None => ErrorModel::Nist,
        };
        if let LinkModel::PathLoss { model, .. } = &medium.model {
            cfg.path_loss = model.clone();
        }
        let mut engine = Medium::new(cfg);
        engine.set_fading(medium.fading_db);
        engine.advance(now, &mut sdmac_medium::Collect::default());
        self.channels.push(Channel {
            within,
            freq,
            engine,
            radio_of: Vec::new(),
            in_flight: HashMap::new(),
        });
        let c = self.channels.len() - 1;
        for r in 0..self.radios.len() {
            if self.radios[r].everywhere && !self.radios[r].gone && self.radios[r].medium == within
            {
                self.station_for(c, r);
            }
        }
        c
    }

    /// Radio `r`'s station in channel `c`, added if new (with its links).
    pub(crate) fn station_for(&mut self, c: usize, r: usize) -> StationId {
        if let Some(&s) = self.radios[r].station.get(&c) {
            return s;
        }
        let within = self.channels[c].within;
        let phy = self.channels[c].engine.phy().clone();
        let radio = &self.radios[r];
        let mut sc = StationConfig::new(&phy, radio.hw.0, radio.pos).with_qos(&phy);
        if let Some(c) = &self.setup.custom_phy {
            sc.edca = [c.edca(); 4];
        }
        sc.noise_floor_dbm = self.media[within].setup.noise_floor_dbm;
        sc.tx_power_dbm = self.tx_power_in(r, within, sc.tx_power_dbm);
        if let Some(g) = radio.gain_dbi {
            sc.antenna_gain_dbi = g;
        }
        let s = self.channels[c].engine.add_station(sc);
        self.give_tuning(c, r, s);
        self.channels[c].radio_of.push(r);
        self.radios[r].station.insert(c, s);
        if radio_tuned_elsewhere(self.radios[r].tuned, self.channels[c].freq) {
            self.channels[c].engine.set_detached(s, true);
        }
        // Links to and from every station already there.
        for (s2, r2) in self.stations_in(c) {
            if s2 == s {
                continue;
            }
            if let Some(o) = self.pair_override(c, r, r2) {
                self.channels[c].engine.set_link(s, s2, o);
            }
            if let Some(o) = self.pair_override(c, r2, r) {
                self.channels[c].engine.set_link(s2, s, o);
            }
        }
        s
    }

    /// Every station of channel `c` with the radio it belongs to.
    pub(crate) fn stations_in(&self, c: usize) -> Vec<(StationId, usize)> {
        self.channels[c].radio_of.iter().enumerate().map(|(s, &r)| (s as StationId, r)).collect()
    }

    /// Radio `r`'s transmit power in medium `within`: its own (or `default`), plus its
    /// Gaussian random term in the log-normal shadowing model.
    pub(crate) fn tx_power_in(&self, r: usize, within: usize, default: f64) -> f64 {
        let radio = &self.radios[r];
        let g = if self.media[within].setup.model.is_log_normal_shadowing() {
            radio.g_random_db
        } else {
            0.0
        };
        radio.power_dbm.unwrap_or(default) + g
    }

    /// How the link from radio `a` to radio `b` is set in channel `c`: absent (no
    /// signal, no carrier sense, no interference) when either is in another medium
    /// now, cut (heard, never decoded) when either is deleted, else what the medium's
    /// model says (None: follow positions).
    pub(crate) fn pair_override(&self, c: usize, a: usize, b: usize) -> Option<LinkOverride> {
        let (ra, rb) = (&self.radios[a], &self.radios[b]);
        let within = self.channels[c].within;
        if ra.medium != within || rb.medium != within || ra.gone || rb.gone {
            return Some(LinkOverride {
                rx_power_dbm: Some(f64::NEG_INFINITY),
                ..LinkOverride::default()
            });
        }
        if ra.deleted || rb.deleted {
            return Some(LinkOverride {
                error_prob: Some(1.0),
                preamble_error_prob: Some(1.0),
                ..LinkOverride::default()
            });
        }
        self.media[within].setup.model.link_override(|m| ra.is(m), |m| rb.is(m))
    }

    /// Radio `hw` sends on `freq` now (a frame of it went to another thread's
    /// channel): it is no longer delivered other channels' frames.
    pub fn set_tuned(&mut self, hw: Mac, freq: u32) {
        if let Some(r) = self.index.by_hw(hw) {
            self.retune(r, freq);
        }
    }

    /// Radio `r` sends on `freq` now: in its station of every other channel it is
    /// away (no links: it neither hears nor is heard there, and costs nothing per
    /// frame), in `freq`'s it is back. A radio that has not sent yet is everywhere.
    pub(crate) fn retune(&mut self, r: usize, freq: u32) {
        if self.radios[r].tuned == Some(freq) {
            return;
        }
        self.radios[r].tuned = Some(freq);
        let stations: Vec<(usize, StationId)> =
            self.radios[r].station.iter().map(|(&c, &s)| (c, s)).collect();
        for (c, s) in stations {
            let away = self.channels[c].freq != freq;
            self.channels[c].engine.set_detached(s, away);
        }
    }

    /// A copy of the radios and media, without any channel and with counters at 0:
    /// the state a new engine-medium thread starts from, so that radio indices (the
    /// control socket's station ids) are the same on every thread.
    pub fn replica(&self) -> HwsimMedium {
        let mut radios = self.radios.clone();
        for r in &mut radios {
            r.station.clear();
        }
        HwsimMedium {
            setup: self.setup.clone(),
            media: self.media.clone(),
            channels: Vec::new(),
            radios,
            index: self.index.clone(),
            next_handle: 1,
            counters: Counters::default(),
            truth: None,
            retries: StatusRetries::default(),
            frames: FramePool::new(),
        }
    }

    /// Runs `f` on channel `c`'s engine medium with the sink that turns its reports
    /// into outputs.
    fn on_channel(
        &mut self,
        c: usize,
        out: &mut Vec<Output>,
        f: impl FnOnce(&mut Medium, &mut Collector<'_>),
    ) {
        let ch = &mut self.channels[c];
        let mut col = Collector {
            out,
            ch: &mut ch.in_flight,
            radio_of: &ch.radio_of,
            radios: &self.radios,
            freq: ch.freq,
            counters: &mut self.counters,
            capture: self.setup.capture,
            truth: self.truth.as_mut(),
        };
        f(&mut ch.engine, &mut col);
    }

    pub(crate) fn advance_channel(&mut self, c: usize, now: Time, out: &mut Vec<Output>) {
        // A medium that ran ahead (`advance_quiet`) stays ahead until `now` reaches it:
        // a frame for it until then is taken as at its own time.
        self.on_channel(c, out, |engine, col| {
            if now >= engine.now() {
                engine.advance(now, col);
            }
        });
    }

    /// Runs every channel up to `now`, taking the movement steps due on the way (each
    /// at its own time: every channel is run up to a step before it is taken).
    pub fn advance(&mut self, now: Time, out: &mut Vec<Output>) {
        self.retries.take_due(Some(now), out);
        self.take_movement_steps(now, out);
        for c in 0..self.channels.len() {
            self.advance_channel(c, now, out);
        }
    }

    /// Runs each channel ahead while no frame that may still come could change what
    /// happens there ([`Medium::advance_quiet`]), never past the next movement step;
    /// the outputs it reports are due later than now. A frame that then comes for a
    /// channel ahead is taken as at its own time. Returns until when every channel
    /// with a station there is ahead (`now` when one is not): a frame that comes
    /// before then may wait.
    pub fn advance_quiet(&mut self, now: Time, out: &mut Vec<Output>) -> Time {
        let limit = self.next_step_time().unwrap_or(sdmac_medium::NEVER);
        let attached = |e: &Medium| (0..e.station_count() as StationId).any(|s| !e.is_detached(s));
        let mut all = sdmac_medium::NEVER;
        for c in 0..self.channels.len() {
            self.on_channel(c, out, |engine, col| {
                let r = engine.advance_quiet(limit, col);
                if attached(engine) {
                    all = all.min(r);
                }
            });
        }
        if all == sdmac_medium::NEVER {
            now
        } else {
            all.max(now)
        }
    }

    /// Takes every movement step due by `now`, in time order.
    pub(crate) fn take_movement_steps(&mut self, now: Time, out: &mut Vec<Output>) {
        while let Some((t, m)) = self
            .media
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.clock.as_ref()?.due(now).map(|t| (t, i)))
            .min()
        {
            for c in 0..self.channels.len() {
                self.advance_channel(c, t, out);
            }
            self.step_medium(m);
            if let Some(clock) = self.media[m].clock.as_mut() {
                clock.step();
            }
        }
    }

    /// Moves every radio of medium `m` that has a direction by one step; only the
    /// moved stations' links are recomputed.
    fn step_medium(&mut self, m: usize) {
        for r in 0..self.radios.len() {
            let radio = &self.radios[r];
            let Some(d) = radio.direction.filter(|_| radio.medium == m) else { continue };
            let pos = moved(radio.pos, d);
            self.place(r, pos);
        }
    }

    /// Puts radio `r` at `pos`, in every channel it has a station in.
    pub(crate) fn place(&mut self, r: usize, pos: [f64; 3]) {
        self.radios[r].pos = pos;
        for (&c, &s) in &self.radios[r].station {
            self.channels[c].engine.set_position(s, pos);
        }
    }

    /// Does some radio of medium `m` move?
    fn moves(&self, m: usize) -> bool {
        self.radios.iter().any(|r| r.medium == m && r.direction.is_some())
    }

    /// When the next event of any channel, or the next movement step, is due.
    pub fn next_event_time(&self) -> Option<Time> {
        let events = self.channels.iter().filter_map(|c| c.engine.next_event_time());
        events.chain(self.next_step_time()).min()
    }

    /// When any channel may next have an output for the kernel, if no frame arrives
    /// meanwhile (see `Medium::next_output_time`), or the next movement step is due
    /// (moving changes links, so what comes out after it): the daemon's wake-up time.
    pub fn next_output_time(&self) -> Option<Time> {
        let outputs = self.channels.iter().filter_map(|c| c.engine.next_output_time());
        outputs.chain(self.next_step_time()).chain(self.retries.next_due()).min()
    }

    /// The kernel refused TX status `msg` (the whole message) of `transmitter`'s
    /// frame `cookie`, seen at `t`: sent again later, or given up
    /// ([`crate::status_retry`]).
    pub fn status_refused(
        &mut self,
        t: Time,
        transmitter: Mac,
        cookie: u64,
        msg: &[u8],
    ) -> RefusedStatus {
        self.retries.refused(t, transmitter, cookie, msg)
    }

    /// When the next refused status is due to be sent again.
    pub fn next_resend_time(&self) -> Option<Time> {
        self.retries.next_due()
    }

    /// Moves the refused statuses due by `now` (all when None) to `out`.
    pub fn take_resends(&mut self, now: Option<Time>, out: &mut Vec<Output>) {
        self.retries.take_due(now, out);
    }

    /// When the next movement step of a medium where some radio moves is due.
    pub fn next_step_time(&self) -> Option<Time> {
        // The clock first: `moves` looks at every radio.
        self.media
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.clock.as_ref().filter(|_| self.moves(i)).map(|k| k.next()))
            .min()
    }

    /// Answers every frame still in flight as not acknowledged (on shutdown).
    pub fn flush(&mut self, out: &mut Vec<Output>) {
        self.retries.take_due(None, out);
        for ch in &mut self.channels {
            // Answered now, as far as this channel's medium has run.
            let due = ch.engine.now();
            for (_, f) in ch.in_flight.drain() {
                self.counters.statuses += 1;
                if let Some(t) = self.truth.as_mut() {
                    t.push(crate::truth::not_carried(
                        f.transmitter,
                        &f.bytes,
                        f.cookie,
                        f.no_ack,
                        &f.echo,
                        &f.kbps,
                        f.n_rates,
                        TruthCause::Shutdown,
                        f.arrived,
                        due,
                    ));
                }
                out.push(Output::TxStatus {
                    transmitter: f.transmitter,
                    cookie: f.cookie,
                    acked: false,
                    signal_dbm: UNHEARD_SIGNAL_DBM,
                    attempts: AttemptCounts::defaults(f.n_rates.max(1)),
                    echo: f.echo,
                    due,
                });
            }
        }
    }

    /// Counters of each engine medium: (medium id, MHz, engine statistics).
    pub fn medium_stats_by_medium(&self) -> Vec<(MediumId, u32, sdmac_medium::MediumStats)> {
        let mut v = Vec::with_capacity(self.channels.len());
        self.medium_stats_into(&mut v);
        v
    }

    /// As [`medium_stats_by_medium`](Self::medium_stats_by_medium), into `into`
    /// (emptied first; no allocation once it has room for every channel).
    pub fn medium_stats_into(&self, into: &mut Vec<(MediumId, u32, sdmac_medium::MediumStats)>) {
        into.clear();
        into.extend(
            self.channels.iter().map(|c| (self.media[c.within].setup.id, c.freq, c.engine.stats())),
        );
    }

    /// Frames in flight over all channels.
    pub fn in_flight(&self) -> usize {
        self.channels.iter().map(|c| c.in_flight.len()).sum()
    }
}
