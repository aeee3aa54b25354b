//! `forward_backend!`: a wrapper made with it passes on every method it does not
//! name, with its arguments and result, and keeps the ones it names.

use crate::{
    ApiError, Backend, BeaconInd, Body, Confirmation, Indication, Interface, Rate, Scope, Status,
    Timestamps, TxAttrs, Value, Wait,
};
use sdmac_types::{Ac, Time};
use std::cell::RefCell;
use std::os::fd::RawFd;
use std::rc::Rc;

/// The probe's clock: far from any real `CLOCK_MONOTONIC` reading.
const PROBE_NOW: Time = Time::from_ns(1_234);

/// A backend that writes down every call with its arguments, and answers each
/// with a value made from them.
struct Probe {
    log: Rc<RefCell<Vec<String>>>,
    timed: bool,
}

impl Probe {
    fn new(timed: bool) -> (Probe, Rc<RefCell<Vec<String>>>) {
        let log = Rc::new(RefCell::new(Vec::new()));
        (Probe { log: log.clone(), timed }, log)
    }
    fn note(&self, call: String) {
        self.log.borrow_mut().push(call);
    }
}

impl Backend for Probe {
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        self.note(format!(
            "data_req {id} {:?} {ac:?} {} {}",
            body.bytes(),
            attrs.no_ack,
            t1.as_ns()
        ));
        Ok(())
    }
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        self.note(format!("data_con {wait:?}"));
        Ok(Some(Confirmation {
            id: 9,
            status: Status::Acked,
            ac: Ac::Vi,
            attempts: 1,
            rates: [(Rate::Ofdm6, 0); 4],
            n_rates: 0,
            len: 60,
            truth: None,
            ts: Timestamps { t1: Time::from_ns(5), ..Timestamps::default() },
        }))
    }
    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError> {
        self.note(format!("data_ind {wait:?}"));
        buf.clear();
        buf.extend_from_slice(b"frame");
        Ok(None)
    }
    fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
        self.note(format!("beacon_ind {wait:?}"));
        Err(ApiError::Closed)
    }
    fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
        self.note(format!("set {name} {scope:?} {value:?}"));
        Ok(())
    }
    fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
        self.note(format!("get {name} {scope:?}"));
        Ok(Value::Int(name.len() as i64))
    }
    fn cancel(&mut self, id: u64) -> Result<bool, ApiError> {
        self.note(format!("cancel {id}"));
        Ok(id == 7)
    }
    fn queue_len(&self, ac: Ac) -> usize {
        self.note(format!("queue_len {ac:?}"));
        ac as usize + 10
    }
    fn unconfirmed(&self) -> usize {
        self.note("unconfirmed".into());
        3
    }
    fn event_fd(&mut self) -> Option<RawFd> {
        self.note("event_fd".into());
        Some(42)
    }
    fn timed_sends(&self) -> bool {
        self.note("timed_sends".into());
        self.timed
    }
    fn now(&self) -> Time {
        self.note("now".into());
        PROBE_NOW
    }
}

/// Calls every method of `b` once and checks each answer that the probe gives
/// (methods in `own` are the wrapper's, not checked here); returns nothing, the
/// probe's log says what reached it.
fn call_all(b: &mut dyn Backend, own: &[&str]) {
    let attrs = TxAttrs { no_ack: true, ..TxAttrs::default() };
    let mine = |m: &str| own.contains(&m);
    let r = b.data_req(7, Body::Payload(b"abc"), Ac::Vo, &attrs, Time::from_ns(77));
    assert!(mine("data_req") || r.is_ok(), "{r:?}");
    let c = b.data_con(Wait::NoWait).unwrap();
    assert!(mine("data_con") || c.is_some_and(|c| c.id == 9 && c.len == 60), "{c:?}");
    let mut buf = Vec::new();
    let i = b.data_ind(&mut buf, Wait::Forever).unwrap();
    assert!(mine("data_ind") || (i.is_none() && buf == b"frame"), "{i:?} {buf:?}");
    let r = b.beacon_ind(Wait::For(std::time::Duration::from_millis(3)));
    assert!(mine("beacon_ind") || matches!(r, Err(ApiError::Closed)), "{r:?}");
    b.set("default_rates", Scope::Queue(Ac::Bk), &Value::Text("54x1".into())).unwrap();
    let v = b.get("address", Scope::Packet(5)).unwrap();
    assert!(mine("get") || v == Value::Int(7), "{v:?}");
    let k = b.cancel(7).unwrap();
    assert!(mine("cancel") || k);
    let q = b.queue_len(Ac::Vi);
    assert!(mine("queue_len") || q == Ac::Vi as usize + 10, "{q}");
    let u = b.unconfirmed();
    assert!(mine("unconfirmed") || u == 3, "{u}");
    let fd = b.event_fd();
    assert!(mine("event_fd") || fd == Some(42), "{fd:?}");
    let t = b.timed_sends();
    assert!(mine("timed_sends") || t);
    let n = b.now();
    assert!(mine("now") || n == PROBE_NOW, "{n:?}");
}

/// What the probe writes down for [`call_all`], method by method.
fn expected(skip: &[&str]) -> Vec<String> {
    [
        ("data_req", "data_req 7 [97, 98, 99] Vo true 77"),
        ("data_con", "data_con NoWait"),
        ("data_ind", "data_ind Forever"),
        ("beacon_ind", "beacon_ind For(3ms)"),
        ("set", "set default_rates Queue(Bk) Text(\"54x1\")"),
        ("get", "get address Packet(5)"),
        ("cancel", "cancel 7"),
        ("queue_len", "queue_len Vi"),
        ("unconfirmed", "unconfirmed"),
        ("event_fd", "event_fd"),
        ("timed_sends", "timed_sends"),
        ("now", "now"),
    ]
    .into_iter()
    .filter(|(m, _)| !skip.contains(m))
    .map(|(_, s)| s.to_string())
    .collect()
}

#[test]
fn the_probe_writes_down_every_method() {
    let (mut p, log) = Probe::new(true);
    call_all(&mut p, &[]);
    assert_eq!(*log.borrow(), expected(&[]));
}

/// Forwards everything to a field.
struct Plain(Probe);

impl Backend for Plain {
    forward_backend!(|s| &mut s.0, &s.0);
}

#[test]
fn a_wrapper_naming_nothing_forwards_every_method() {
    let (p, log) = Probe::new(true);
    call_all(&mut Plain(p), &[]);
    assert_eq!(*log.borrow(), expected(&[]));
}

/// Cancels nothing itself, keeps the trait's own clock, and forwards the rest to
/// a boxed backend.
struct Partial {
    inner: Box<dyn Backend>,
}

impl Backend for Partial {
    fn cancel(&mut self, _id: u64) -> Result<bool, ApiError> {
        Ok(false)
    }
    forward_backend!(|s| &mut *s.inner, &*s.inner; except cancel, now);
}

#[test]
fn a_wrapper_keeps_what_it_names_and_forwards_the_rest() {
    let (p, log) = Probe::new(true);
    let mut w = Partial { inner: Box::new(p) };
    call_all(&mut w, &["cancel", "now"]);
    assert_eq!(*log.borrow(), expected(&["cancel", "now"]));
    assert!(!w.cancel(7).unwrap(), "the wrapper's own cancel");
    // The default `now`, CLOCK_MONOTONIC, not the probe's.
    assert_ne!(w.now(), PROBE_NOW);
    assert_eq!(log.borrow().len(), expected(&["cancel", "now"]).len());
}

/// One backend in either of two places: the enum form.
enum Either {
    Bare(Interface<Probe>),
    Other(Interface<Probe>),
}

impl Backend for Either {
    forward_backend!(match { Self::Bare(i), Self::Other(i) } => i.backend_mut(), i.backend());
}

#[test]
fn an_enum_forwards_every_method_to_each_variant() {
    for bare in [true, false] {
        let (p, log) = Probe::new(true);
        let mut e =
            if bare { Either::Bare(Interface::new(p)) } else { Either::Other(Interface::new(p)) };
        call_all(&mut e, &[]);
        // To the backend inside each interface, not through the interface (no t9).
        assert_eq!(*log.borrow(), expected(&[]));
        assert_eq!(e.data_con(Wait::NoWait).unwrap().unwrap().ts.t9, Time::ZERO);
    }
}

/// Forwards everything to an interface.
struct OverInterface(Interface<Probe>);

impl Backend for OverInterface {
    forward_backend!(|s| &mut s.0, &s.0);
}

#[test]
fn an_interface_as_backend_is_the_interface() {
    let (p, log) = Probe::new(true);
    let mut w = OverInterface(Interface::new(p));
    call_all(&mut w, &[]);
    // Each call reaches the backend once; the interface reads the clock for t9 and
    // t_returned only when there is something to stamp.
    let mut want = expected(&[]);
    want.insert(2, "now".into()); // t9 of the confirmation
    assert_eq!(*log.borrow(), want);
    let c = w.data_con(Wait::NoWait).unwrap().unwrap();
    assert_eq!(c.ts.t9, PROBE_NOW, "t9 stamped by the interface");

    // A timed request on a backend that cannot keep time: refused by the interface,
    // never reaching the backend.
    let (p, log) = Probe::new(false);
    let mut w = OverInterface(Interface::new(p));
    let attrs = TxAttrs { not_before: Some(Time::from_ns(100)), ..TxAttrs::default() };
    let r = w.data_req(1, Body::Frame(b"x"), Ac::Be, &attrs, Time::from_ns(50));
    assert!(matches!(r, Err(ApiError::Unsupported { .. })), "{r:?}");
    assert_eq!(*log.borrow(), ["timed_sends"]);
    // Without timestamps asked for, t1 does not reach the backend.
    let attrs = TxAttrs { timestamps: false, ..TxAttrs::default() };
    w.data_req(2, Body::Frame(b"y"), Ac::Be, &attrs, Time::from_ns(50)).unwrap();
    assert_eq!(log.borrow().last().unwrap(), "data_req 2 [121] Be false 0");
}
