//! A station of the run: starting its data path (on a thread of its own or in the
//! one-thread loop) and its management thread, stopping it, its TAP device, and the
//! ready file that lists the stations.

use crate::*;
pub(crate) fn report_line(name: &str, s: &Stats) -> String {
    let drops: Vec<String> = sdmac_tap::DropReason::ALL
        .iter()
        .filter(|r| s.drops_for(**r) > 0)
        .map(|r| format!("{}={}", r.name(), s.drops_for(*r)))
        .collect();
    format!(
        "{name:>10}: tap->air {} (acked {}, ack_timeout {}, sent {}, dropped {}, retries {}) | air->tap {} of {} | drops: {}",
        s.tap_rx_frames,
        s.tx_acked,
        s.tx_ack_timeout,
        s.tx_sent,
        s.tx_dropped,
        s.tx_retries,
        s.tap_tx_frames,
        s.rx_indications,
        if drops.is_empty() { "none".to_string() } else { drops.join(" ") }
    )
}

/// The hidden fault injection `SDMAC_TAP_PANIC_AFTER=STATION:FRAMES`: that station's
/// thread panics once that many frames went through its data path (for the test of
/// the clean-up after a crash).
pub(crate) fn panic_after() -> Result<Option<(String, u64)>, String> {
    let Ok(v) = std::env::var("SDMAC_TAP_PANIC_AFTER") else { return Ok(None) };
    let bad = || format!("SDMAC_TAP_PANIC_AFTER={v:?}: must be STATION:FRAMES");
    let (name, n) = v.split_once(':').ok_or_else(bad)?;
    Ok(Some((name.to_string(), n.parse().map_err(|_| bad())?)))
}

/// A request for a running station's MAC, from the control socket.
pub(crate) enum StationCtl {
    /// Set an adapter attribute of the station's interface (`tx_power`, `position`);
    /// the answer goes back on the channel.
    Set(&'static str, AttrValue, SyncSender<Result<(), String>>),
}

/// Where a station's data path runs.
pub(crate) enum Worker {
    /// A thread of its own.
    Thread(JoinHandle<Outcome>),
    /// The one-thread loop (`--one-thread`).
    Loop(PathHandle),
}

impl Worker {
    pub(crate) fn is_finished(&self) -> bool {
        match self {
            Worker::Thread(t) => t.is_finished(),
            Worker::Loop(h) => h.is_finished(),
        }
    }

    /// Its outcome once it ends (stop it first); `None` if it panicked.
    pub(crate) fn join(self) -> Option<Outcome> {
        match self {
            Worker::Thread(t) => t.join().ok(),
            Worker::Loop(h) => h.join(),
        }
    }
}

/// A station whose data path runs.
pub(crate) struct Running {
    pub(crate) thread: Worker,
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) mgmt: Option<JoinHandle<Manager>>,
    pub(crate) ctl: SyncSender<StationCtl>,
}

/// What a station is at a moment of the run.
#[allow(clippy::large_enum_variant)] // one per station
pub(crate) enum Slot {
    /// Reserved, not added: its interface waits here.
    Idle(Box<Interface<StationBackend>>),
    /// Up.
    Up(Running),
    /// Ended: what its thread returned (None: it panicked), and its management
    /// thread's counters.
    Done(Option<Outcome>, Option<Manager>),
}

/// What every station thread is started with.
pub(crate) struct Shared<'a> {
    pub(crate) a: &'a Args,
    pub(crate) bssid: MacAddress,
    /// Index of the AP; `None`: an IBSS.
    pub(crate) ap: Option<usize>,
    /// Every station's address (index: its place in the run's list) and, for the
    /// AP, whether it is associated; grows as stations are added.
    pub(crate) table: Arc<StationTable>,
    pub(crate) fault: Option<(String, u64)>,
    /// What stations added at run time copy (see [`Plan::model`]).
    pub(crate) model: StationConfig,
    /// How many stations the scenario has.
    pub(crate) scenario_stations: usize,
    /// On radios: the channel the AP's own beacons name (`--freq`'s); `None` on the
    /// emulated medium, whose engine beacons for the AP.
    pub(crate) beacon_channel: Option<u8>,
    /// `--one-thread`: the loop that serves every data path (and the emulated medium).
    pub(crate) runner: Option<&'a Runner<StationBackend>>,
}

/// What changes while the run goes on: the stations (they grow as some are added)
/// and what each one is at the moment, and the capture ends not yet handed out.
pub(crate) struct Live {
    pub(crate) stations: Vec<Station>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) capture_ends: Vec<Option<capture::CaptureEnd>>,
    /// With `--pcap`: the writer's channel and where a new data path announces its
    /// way back, for stations added at run time.
    pub(crate) capture_more: Option<(SyncSender<Box<capture::Record>>, NewEnds)>,
}

/// Where a data path started late announces its origin and the channel its
/// capture records go back on.
pub(crate) type NewEnds = std::sync::mpsc::Sender<(u16, SyncSender<Box<capture::Record>>)>;

/// Starts station `k` (`s`)'s data path (and, in an AP's BSS, its management
/// thread) on `iface` and its TAP device.
pub(crate) fn start_station(
    sh: &Shared,
    k: usize,
    s: &Station,
    mut iface: Interface<StationBackend>,
    tap: netns::TapDevice,
    cap: Option<capture::CaptureEnd>,
) -> Result<Running, String> {
    let p = sh;
    let station_stop = Arc::new(AtomicBool::new(false));
    let ds = match p.ap {
        None => Ds::Ibss,
        Some(ap) if ap == k => Ds::FromAp,
        Some(_) => Ds::ToAp,
    };
    let params = TxParams { own: s.address, bssid: p.bssid, ds, qos_tid: None };
    // Management (AP role): its own thread, linked to the data path by two bounded
    // channels.
    let mut mgmt_thread = None;
    let role_link = match p.ap {
        None => None,
        Some(ap) => {
            // The emulated medium hands management frames to data_ind when asked;
            // a radio backend always does (and its beacons to beacon_ind).
            if matches!(iface.backend(), StationBackend::Emu(_)) {
                iface
                    .set("rx_management", Scope::Adapter, true)
                    .map_err(|e| format!("station {}: rx_management: {e}", s.name))?;
            }
            let (to_mgmt, mgmt_rx) = sync_channel::<MgmtFrame>(64);
            let (mgmt_tx, from_mgmt) = sync_channel::<MgmtFrame>(64);
            let (role, path_role) = if ap == k {
                (
                    mgmt::Role::Ap {
                        stations: sh.table.clone(),
                        aids: vec![0; sh.table.capacity()],
                    },
                    PathRole::Ap,
                )
            } else {
                let associated = Arc::new(AtomicBool::new(false));
                (
                    mgmt::Role::Sta {
                        state: mgmt::StaState::Scanning,
                        associated: associated.clone(),
                    },
                    PathRole::Sta { associated },
                )
            };
            let mut m = Manager::new(s.address, p.bssid, role);
            if let (Some(ch), true) = (sh.beacon_channel, ap == k) {
                // On a radio nothing else beacons for the AP: its manager does.
                m = m.with_beacons(ch, BEACON_INTERVAL_TU);
            }
            let stop = station_stop.clone();
            let t = std::thread::Builder::new()
                .name(format!("mgmt-{}", s.name))
                .spawn(move || {
                    let t0 = Instant::now();
                    let now = || t0.elapsed().as_nanos() as u64;
                    while !stop.load(Ordering::Relaxed) {
                        // At most 20 ms, and no later than the next beacon.
                        let wait = m.next_due().map_or(20_000_000, |d| d.saturating_sub(now()));
                        let out = match mgmt_rx
                            .recv_timeout(Duration::from_nanos(wait.min(20_000_000)))
                        {
                            Ok(f) => m.handle(f.as_slice(), now()),
                            Err(RecvTimeoutError::Timeout) => None,
                            Err(RecvTimeoutError::Disconnected) => break,
                        };
                        // Timers (a retry, a beacon) run however busy the channel is.
                        let due = m.tick(now());
                        if out.into_iter().chain(due).any(|f| mgmt_tx.send(f).is_err()) {
                            break;
                        }
                    }
                    m
                })
                .map_err(|e| format!("cannot start a management thread: {e}"))?;
            mgmt_thread = Some(t);
            Some((path_role, MgmtLink { to_mgmt, from_mgmt }))
        }
    };
    let stop = station_stop.clone();
    let table = sh.table.clone();
    let on_radio = matches!(iface.backend(), StationBackend::Radio(_));
    let label = format!("{} (namespace {})", s.name, s.netns);
    let (ctl, ctl_rx) = sync_channel::<StationCtl>(4);
    let between = move |iface: &mut Interface<StationBackend>| {
        while let Ok(StationCtl::Set(name, value, answer)) = ctl_rx.try_recv() {
            let r = iface.set(name, Scope::Adapter, value).map_err(|e| e.to_string());
            let _ = answer.send(r);
        }
    };
    // The one-thread loop runs the emulated medium between the paths' passes, so an
    // interface there has nothing to be woken for; a radio's still signals.
    let signalled = sh.runner.is_none() || on_radio;
    let mut path = {
        use std::os::fd::AsRawFd;
        StationPath::with_signalling(
            iface,
            tap.as_raw_fd(),
            params,
            table,
            sh.a.busy_poll,
            signalled,
        )
        .with_qos(s.qos)
    };
    if let Some((role, link)) = role_link {
        path = path.with_role(role, link).with_beacons_from_ind(on_radio);
    }
    if let Some(c) = cap {
        path = path.with_capture(c);
    }
    if let Some(n) = sh.fault.as_ref().filter(|f| f.0 == s.name).map(|f| f.1) {
        path.panic_after(n);
    }
    if let Some(runner) = sh.runner {
        let h = runner.add(path, tap, Box::new(between), label)?;
        return Ok(Running { thread: Worker::Loop(h), stop: station_stop, mgmt: mgmt_thread, ctl });
    }
    let uring = sh.a.uring;
    let realtime = sh.a.realtime;
    let thread = std::thread::Builder::new()
        .name(format!("tap-{}", s.name))
        .spawn(move || {
            if let Some(p) = realtime {
                // Checked at the start; a failure here leaves the normal policy.
                if let Err(e) = sdmac_rt::affinity::realtime_current(p) {
                    eprintln!("sdmac-tap: station {label}: --realtime {p}: {e}");
                }
            }
            if uring {
                if let Err(e) = path.use_io_uring() {
                    eprintln!(
                        "sdmac-tap: station {label}: io_uring not available ({e}); one read or write per frame"
                    );
                }
            }
            let r = path.run_with(&stop, between);
            if let Err(e) = &r {
                if !stop.load(Ordering::Relaxed) {
                    eprintln!("sdmac-tap: station {label}: {e}; the other stations keep running");
                }
            }
            let stats = path.stats.clone();
            // The path first: its ring cancels the reads armed on the device.
            drop(path);
            drop(tap);
            (stats, r.err().map(|e: PathError| e.to_string()))
        });
    let thread = thread.map_err(|e| format!("cannot start a station thread: {e}"))?;
    Ok(Running { thread: Worker::Thread(thread), stop: station_stop, mgmt: mgmt_thread, ctl })
}

/// The ready file's document: the BSS, the stations up now and those of the reserved
/// pool not yet added (each with its namespace, device, addresses and role).
pub(crate) fn ready_json(
    a: &Args,
    bssid: MacAddress,
    ap: Option<usize>,
    live: &Live,
    table: &StationTable,
) -> Value {
    let station_json = |k: usize, s: &Station| {
        json!({
            "name": s.name, "netns": s.netns, "ifname": a.ifname,
            "address": s.address.to_string(), "ipv4": s.ipv4.to_string(), "id": s.id,
            "role": match ap { None => "ibss", Some(x) if x == k => "ap", _ => "sta" },
            "associated": table.is_associated(k) || ap.is_none(),
        })
    };
    let with = |want: fn(&Slot) -> bool| -> Vec<Value> {
        live.stations
            .iter()
            .zip(&live.slots)
            .enumerate()
            .filter(|(_, (_, slot))| want(slot))
            .map(|(k, (s, _))| station_json(k, s))
            .collect()
    };
    json!({
        "bssid": bssid.to_string(),
        "mode": if ap.is_some() { "ap" } else { "ibss" },
        "stations": with(|slot| matches!(slot, Slot::Up(_))),
        "reserved": with(|slot| matches!(slot, Slot::Idle(_))),
        "control": a.control,
    })
}

/// Writes the ready file whole: to a temporary file beside it, renamed over it, so a
/// reader never sees half a document.
pub(crate) fn write_ready(path: &str, doc: &Value) -> Result<(), String> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, doc.to_string())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {path}: {e}"))
}

/// Creates station `k`'s namespace and TAP device.
pub(crate) fn make_tap(
    a: &Args,
    s: &Station,
    spaces: &mut Namespaces,
) -> Result<netns::TapDevice, String> {
    spaces.create(&s.netns).map_err(|e: SetupError| e.to_string())?;
    let cfg = TapConfig {
        netns: s.netns.clone(),
        ifname: a.ifname.clone(),
        mac: s.address,
        ipv4: Some((s.ipv4, a.subnet.1)),
        mtu: a.mtu,
    };
    netns::create_tap(&cfg).map_err(|e| format!("station {} (namespace {}): {e}", s.name, s.netns))
}

/// Stops a running station and waits for its threads.
pub(crate) fn stop_station(r: Running) -> Slot {
    r.stop.store(true, Ordering::Relaxed);
    let out = r.thread.join();
    let m = r.mgmt.and_then(|t| t.join().ok());
    Slot::Done(out, m)
}
