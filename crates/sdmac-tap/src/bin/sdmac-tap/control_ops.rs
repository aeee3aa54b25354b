//! What the control socket's requests do to a running `sdmac-tap`: add a station
//! (from the reserved pool or new), delete one, set its transmit power or position.

use crate::*;
/// Carries out one control request; the result and (for an add) the station id.
pub(crate) fn control_request(
    req: &Request,
    sh: &Shared,
    live: &mut Live,
    spaces: &mut Namespaces,
    session: &mut Option<EmuSession>,
) -> (UpdateResult, i32) {
    let find = |live: &Live, m: &MacAddress| live.stations.iter().position(|s| s.address == *m);
    match req {
        Request::Add(mac) => {
            let Some(k) = find(live, mac) else {
                return add_new(sh, live, spaces, session, *mac);
            };
            let s = &live.stations[k];
            if !matches!(live.slots[k], Slot::Idle(_)) {
                return (UpdateResult::Duplicate, s.id as i32);
            }
            let tap = match make_tap(sh.a, s, spaces) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("sdmac-tap: control: add {}: {e}", s.name);
                    let _ = spaces.remove(&s.netns);
                    return (UpdateResult::NotFound, -1);
                }
            };
            let Slot::Idle(iface) = std::mem::replace(&mut live.slots[k], Slot::Done(None, None))
            else {
                unreachable!("checked")
            };
            let cap = live.capture_ends.get_mut(k).and_then(Option::take);
            match start_station(sh, k, s, *iface, tap, cap) {
                Ok(r) => {
                    live.slots[k] = Slot::Up(r);
                    eprintln!(
                        "sdmac-tap: added {} {} {} {}/{}",
                        s.name, s.netns, s.address, s.ipv4, sh.a.subnet.1
                    );
                    (UpdateResult::Success, s.id as i32)
                }
                Err(e) => {
                    eprintln!("sdmac-tap: control: add {}: {e}", s.name);
                    let _ = spaces.remove(&s.netns);
                    (UpdateResult::NotFound, -1)
                }
            }
        }
        Request::DelByMac(_) | Request::DelById(_) => {
            let k = match req {
                Request::DelByMac(m) => find(live, m),
                Request::DelById(id) => live.stations.iter().position(|s| s.id as i32 == *id),
                _ => None,
            };
            let Some(k) = k.filter(|&k| matches!(live.slots[k], Slot::Up(_))) else {
                return (UpdateResult::NotFound, 0);
            };
            let Slot::Up(r) = std::mem::replace(&mut live.slots[k], Slot::Done(None, None)) else {
                unreachable!("checked")
            };
            // Out of the table first: the others stop sending to it.
            sh.table.remove(k);
            live.slots[k] = stop_station(r);
            let s = &live.stations[k];
            if let Err(e) = spaces.remove(&s.netns) {
                eprintln!("sdmac-tap: control: removing {}: {e}", s.netns);
            }
            eprintln!("sdmac-tap: removed {} (namespace {})", s.name, s.netns);
            (UpdateResult::Success, 0)
        }
        Request::TxPower { mac, dbm } => {
            let k = find(live, mac);
            set_station(live, k, "tx_power", AttrValue::Float(*dbm as f64))
        }
        Request::Position { mac, x, y, z } => {
            let at = AttrValue::Text(format_position([*x as f64, *y as f64, *z as f64]));
            let k = find(live, mac);
            set_station(live, k, "position", at)
        }
        _ => (UpdateResult::WrongMode, 0),
    }
}

/// Adds a station with address `mac`, which no station of the run has, to the
/// running emulated medium: its namespace and TAP device, its interface
/// (`EmuSession::add_station`), its entry in the station table (so that the other
/// data paths and the AP's management thread know it) and its threads. Refused
/// with "wrong mode" over radios, when the table is full (`--max-stations`) or the
/// subnet has no address left; the reason is on stderr.
pub(crate) fn add_new(
    sh: &Shared,
    live: &mut Live,
    spaces: &mut Namespaces,
    session: &mut Option<EmuSession>,
    mac: MacAddress,
) -> (UpdateResult, i32) {
    let refuse = |why: String| {
        eprintln!("sdmac-tap: control: add {mac}: {why}");
        (UpdateResult::WrongMode, -1)
    };
    let Some(session) = session else {
        return refuse("stations are added on the emulated medium only, not over radios".into());
    };
    if mac.is_multicast() {
        return refuse("a group address is no station's".into());
    }
    let k = live.stations.len();
    if k >= sh.table.capacity() {
        return refuse(format!(
            "--max-stations {} reached (the station table is full); start with a larger --max-stations",
            sh.table.capacity()
        ));
    }
    let Some(ipv4) = netns::host_address(sh.a.subnet, k as u32 + 1) else {
        return refuse(format!("subnet {}/{} has no address left", sh.a.subnet.0, sh.a.subnet.1));
    };
    let name = (1..)
        .map(|j| format!("n{j}"))
        .find(|n| live.stations.iter().all(|s| s.name != *n))
        .expect("a free name");
    let mut s = Station {
        netns: format!("{}{name}", sh.a.prefix),
        name,
        id: StationId::MAX,
        address: mac,
        ipv4,
        ap: false,
        reserved: false,
        qos: sh.model.qos,
    };
    let tap = match make_tap(sh.a, &s, spaces) {
        Ok(t) => t,
        Err(e) => {
            let _ = spaces.remove(&s.netns);
            return refuse(e);
        }
    };
    let cfg = extra_station(&sh.model, mac, k - sh.scenario_stations);
    let iface = match session.add_station(&s.name, cfg) {
        Ok(i) => i,
        Err(e) => {
            drop(tap);
            let _ = spaces.remove(&s.netns);
            return refuse(format!("the emulated medium refused it: {e}"));
        }
    };
    s.id = iface.backend().station();
    match sh.table.push(mac) {
        Ok(at) if at == k => {}
        r => {
            // The table is written by this thread only, in step with the list.
            drop(tap);
            let _ = spaces.remove(&s.netns);
            return refuse(format!("the station table is out of step ({r:?} for {k})"));
        }
    }
    let cap = live.capture_more.as_ref().map(|(to_writer, new_ends)| {
        let (end, back) = capture::end(to_writer.clone(), k as u16, 256, false);
        let _ = new_ends.send((k as u16, back));
        end
    });
    let iface = Interface::new(StationBackend::Emu(iface));
    match start_station(sh, k, &s, iface, tap, cap) {
        Ok(r) => {
            eprintln!(
                "sdmac-tap: added {} {} {} {}/{} (new on the medium, id {})",
                s.name, s.netns, s.address, s.ipv4, sh.a.subnet.1, s.id
            );
            let id = s.id as i32;
            live.stations.push(s);
            live.slots.push(Slot::Up(r));
            live.capture_ends.push(None);
            (UpdateResult::Success, id)
        }
        Err(e) => {
            sh.table.remove(k);
            let _ = spaces.remove(&s.netns);
            // Its slot in the table stays taken: the list keeps the station, ended.
            live.stations.push(s);
            live.slots.push(Slot::Done(Some((Stats::default(), Some(e.clone()))), None));
            live.capture_ends.push(None);
            refuse(e)
        }
    }
}

/// Sets adapter attribute `name` of station `k` (idle: directly; running: through its
/// thread), for a control request; a backend that refuses it answers "wrong mode".
pub(crate) fn set_station(
    live: &mut Live,
    k: Option<usize>,
    name: &'static str,
    value: AttrValue,
) -> (UpdateResult, i32) {
    let Some(k) = k else { return (UpdateResult::NotFound, 0) };
    let shown = value.to_string();
    let r = match &mut live.slots[k] {
        Slot::Idle(iface) => iface.set(name, Scope::Adapter, value).map_err(|e| e.to_string()),
        Slot::Up(r) => {
            let (tx, rx) = sync_channel(1);
            match r.ctl.try_send(StationCtl::Set(name, value, tx)) {
                Ok(()) => rx
                    .recv_timeout(Duration::from_secs(2))
                    .unwrap_or_else(|_| Err("the station did not answer".into())),
                Err(_) => Err("the station is busy or gone".into()),
            }
        }
        Slot::Done(..) => return (UpdateResult::NotFound, 0),
    };
    match r {
        Ok(()) => (UpdateResult::Success, 0),
        Err(e) => {
            eprintln!("sdmac-tap: control: {name} {shown} of {}: {e}", live.stations[k].name);
            (UpdateResult::WrongMode, 0)
        }
    }
}
