//! The C functions called as C calls them: NULL and invalid arguments give their
//! documented codes (never a crash), errors leave a message naming what was wrong,
//! and the primitives work on emu.

use sdmac::*;
use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use sdmac_error::*;

fn last() -> String {
    unsafe { CStr::from_ptr(sdmac_last_error()) }.to_str().unwrap().to_string()
}

fn open(name: &str) -> *mut sdmac_iface {
    let n = CString::new(name).unwrap();
    let mut h = null_mut();
    assert_eq!(unsafe { sdmac_open(n.as_ptr(), &mut h) }, SDMAC_OK, "{}", last());
    assert!(!h.is_null());
    h
}

fn attrs() -> sdmac_tx_attrs {
    let mut a = std::mem::MaybeUninit::uninit();
    assert_eq!(unsafe { sdmac_tx_attrs_init(a.as_mut_ptr()) }, SDMAC_OK);
    unsafe { a.assume_init() }
}

fn get(
    h: *mut sdmac_iface,
    name: &str,
    scope: sdmac_scope,
    which: u64,
) -> Result<String, sdmac_error> {
    let n = CString::new(name).unwrap();
    let mut buf = [0 as c_char; 256];
    match unsafe { sdmac_get(h, n.as_ptr(), scope as i32, which, buf.as_mut_ptr(), buf.len()) } {
        SDMAC_OK => Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()),
        e => Err(e),
    }
}

fn set(
    h: *mut sdmac_iface,
    name: &str,
    scope: sdmac_scope,
    which: u64,
    value: &str,
) -> sdmac_error {
    let (n, v) = (CString::new(name).unwrap(), CString::new(value).unwrap());
    unsafe { sdmac_set(h, n.as_ptr(), scope as i32, which, v.as_ptr()) }
}

fn cstr(a: &[c_char]) -> &str {
    unsafe { CStr::from_ptr(a.as_ptr()) }.to_str().unwrap()
}

#[test]
fn null_arguments_give_sdmac_err_null() {
    let h = open("emu");
    let a = attrs();
    let name = c"bssid".as_ptr();
    let mut con = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
    let mut ind = std::mem::MaybeUninit::<sdmac_indication>::uninit();
    let mut b = std::mem::MaybeUninit::<sdmac_beacon>::uninit();
    let mut buf = [0u8; 64];
    let mut cbuf = [0 as c_char; 64];
    let mut n = 0i32;
    let mut len = 0usize;
    let mut out = null_mut();
    unsafe {
        assert_eq!(sdmac_open(null(), &mut out), SDMAC_ERR_NULL);
        assert!(out.is_null());
        assert!(last().contains("backend is NULL"), "{}", last());
        assert_eq!(sdmac_open(c"emu".as_ptr(), null_mut()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_close(null_mut()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_tx_attrs_init(null_mut()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_data_req(null_mut(), 1, buf.as_ptr(), 4, &a), SDMAC_ERR_NULL);
        assert!(last().contains("handle is NULL"), "{}", last());
        assert_eq!(sdmac_data_req(h, 1, buf.as_ptr(), 4, null()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_data_req(h, 1, null(), 4, &a), SDMAC_ERR_NULL);
        assert!(last().contains("body is NULL"), "{}", last());
        assert_eq!(sdmac_data_con(null_mut(), 0, con.as_mut_ptr()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_data_con(h, 0, null_mut()), SDMAC_ERR_NULL);
        assert_eq!(
            sdmac_data_ind(null_mut(), 0, ind.as_mut_ptr(), buf.as_mut_ptr(), buf.len()),
            SDMAC_ERR_NULL
        );
        assert_eq!(sdmac_data_ind(h, 0, null_mut(), buf.as_mut_ptr(), buf.len()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_data_ind(h, 0, ind.as_mut_ptr(), null_mut(), 0), SDMAC_ERR_NULL);
        assert_eq!(sdmac_beacon_ind(null_mut(), 0, b.as_mut_ptr()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_beacon_ind(h, 0, null_mut()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_set(null_mut(), name, 0, 0, c"1".as_ptr()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_set(h, null(), 0, 0, c"1".as_ptr()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_set(h, name, 0, 0, null()), SDMAC_ERR_NULL);
        assert_eq!(
            sdmac_get(null_mut(), name, 0, 0, cbuf.as_mut_ptr(), cbuf.len()),
            SDMAC_ERR_NULL
        );
        assert_eq!(sdmac_get(h, null(), 0, 0, cbuf.as_mut_ptr(), cbuf.len()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_get(h, name, 0, 0, null_mut(), 0), SDMAC_ERR_NULL);
        assert_eq!(sdmac_cancel(null_mut(), 1, &mut n), SDMAC_ERR_NULL);
        assert_eq!(sdmac_cancel(h, 1, null_mut()), SDMAC_ERR_NULL);
        assert_eq!(sdmac_queue_len(null_mut(), 0, &mut len), SDMAC_ERR_NULL);
        assert_eq!(sdmac_queue_len(h, 0, null_mut()), SDMAC_ERR_NULL);
        // A zero-length payload may come without a pointer.
        assert_eq!(sdmac_data_req(h, 1, null(), 0, &a), SDMAC_OK, "{}", last());
        assert_eq!(sdmac_data_con(h, 5_000_000_000, con.as_mut_ptr()), SDMAC_OK);
        assert_eq!(sdmac_close(h), SDMAC_OK);
    }
}

#[test]
fn open_errors_have_codes_and_messages() {
    let mut h = null_mut();
    unsafe {
        // No medium daemon on the default control socket here: hwsim cannot open.
        assert_eq!(sdmac_open(c"hwsim:wlan9".as_ptr(), &mut h), SDMAC_ERR_OPEN_FAILED);
        assert!(h.is_null());
        assert!(
            last().starts_with(
                "backend \"hwsim:wlan9\": no medium daemon answers on the control socket"
            ),
            "{}",
            last()
        );
        assert!(last().contains("linux:wlan9"), "{}", last());
        assert_eq!(sdmac_open(c"linux:sdmacnone9".as_ptr(), &mut h), SDMAC_ERR_OPEN_FAILED);
        assert!(h.is_null());
        assert!(last().contains("sdmacnone9"), "{}", last());
        assert_eq!(sdmac_open(c"wifi".as_ptr(), &mut h), SDMAC_ERR_BAD_NAME);
        assert!(last().contains("unknown kind of backend \"wifi\""), "{}", last());
        assert_eq!(sdmac_open(c"emu:/nonexistent.toml".as_ptr(), &mut h), SDMAC_ERR_OPEN_FAILED);
        assert!(last().contains("/nonexistent.toml"), "{}", last());
        let bad = [0xffu8 as c_char, 0];
        assert_eq!(sdmac_open(bad.as_ptr(), &mut h), SDMAC_ERR_INVALID_ARGUMENT);
        assert!(last().contains("not UTF-8"), "{}", last());
        assert!(h.is_null());
    }
}

#[test]
fn invalid_arguments_give_their_codes() {
    let h = open("emu");
    let body = [1u8; 50];
    let mut a = attrs();
    let mut len = 0usize;
    unsafe {
        a.ac = 7;
        assert_eq!(sdmac_data_req(h, 1, body.as_ptr(), body.len(), &a), SDMAC_ERR_INVALID_ARGUMENT);
        assert!(last().contains("attrs->ac 7"), "{}", last());
        a.ac = sdmac_ac::SDMAC_AC_VO as i32;
        a.rates = c"54x1,7x1".as_ptr();
        assert_eq!(sdmac_data_req(h, 1, body.as_ptr(), body.len(), &a), SDMAC_ERR_INVALID_REQUEST);
        assert!(last().contains("\"7x1\""), "{}", last());
        a.rates = c"54x1".as_ptr();
        let big = vec![0u8; 5000];
        assert_eq!(sdmac_data_req(h, 1, big.as_ptr(), big.len(), &a), SDMAC_ERR_TOO_LONG);
        assert_eq!(
            sdmac_data_req(h, u64::MAX, body.as_ptr(), body.len(), &a),
            SDMAC_ERR_INVALID_ID
        );
        a.raw_frame = 1;
        assert_eq!(sdmac_data_req(h, 1, body.as_ptr(), 3, &a), SDMAC_ERR_MALFORMED_FRAME);
        assert_eq!(sdmac_queue_len(h, -1, &mut len), SDMAC_ERR_INVALID_ARGUMENT);
        let mut con = std::mem::MaybeUninit::uninit();
        assert_eq!(sdmac_data_con(h, 0, con.as_mut_ptr()), SDMAC_ERR_TIMEOUT);
        assert_eq!(sdmac_data_con(h, 1_000_000, con.as_mut_ptr()), SDMAC_ERR_TIMEOUT);
        assert!(last().contains("no confirmation within 1000000 ns"), "{}", last());
        assert_eq!(
            get(h, "nope", sdmac_scope::SDMAC_SCOPE_ADAPTER, 0),
            Err(SDMAC_ERR_UNKNOWN_ATTRIBUTE)
        );
        sdmac_close(h);
    }
}

#[test]
fn set_and_get_as_text() {
    let h = open("emu");
    use sdmac_scope::*;
    assert_eq!(get(h, "address", SDMAC_SCOPE_ADAPTER, 0).unwrap(), "02:00:00:00:00:02");
    assert_eq!(get(h, "bssid", SDMAC_SCOPE_ADAPTER, 0).unwrap(), "02:00:00:00:00:01");
    assert_eq!(get(h, "channel", SDMAC_SCOPE_ADAPTER, 0).unwrap(), "36");
    assert_eq!(set(h, "default_rates", SDMAC_SCOPE_ADAPTER, 0, "24x2,6x1"), SDMAC_OK, "{}", last());
    assert_eq!(get(h, "default_rates", SDMAC_SCOPE_ADAPTER, 0).unwrap(), "24x2,6x1");
    assert_eq!(set(h, "rx_management", SDMAC_SCOPE_ADAPTER, 0, "true"), SDMAC_OK, "{}", last());
    assert_eq!(get(h, "rx_management", SDMAC_SCOPE_ADAPTER, 0).unwrap(), "true");
    assert_eq!(
        set(h, "cw_min", SDMAC_SCOPE_QUEUE, sdmac_ac::SDMAC_AC_BE as u64, "31"),
        SDMAC_OK,
        "{}",
        last()
    );
    assert_eq!(get(h, "cw_min", SDMAC_SCOPE_QUEUE, sdmac_ac::SDMAC_AC_BE as u64).unwrap(), "31");
    assert_eq!(set(h, "retry_limit", SDMAC_SCOPE_ADAPTER, 0, "many"), SDMAC_ERR_INVALID_VALUE);
    assert!(last().contains("\"retry_limit\""), "{}", last());
    assert_eq!(set(h, "address", SDMAC_SCOPE_ADAPTER, 0, "02:00:00:00:00:09"), SDMAC_ERR_READ_ONLY);
    assert_eq!(set(h, "aifsn", SDMAC_SCOPE_ADAPTER, 0, "2"), SDMAC_ERR_WRONG_SCOPE);
    assert_eq!(set(h, "aifsn", SDMAC_SCOPE_QUEUE, 9, "2"), SDMAC_ERR_INVALID_ARGUMENT);
    assert_eq!(
        unsafe { sdmac_set(h, c"aifsn".as_ptr(), 3, 0, c"2".as_ptr()) },
        SDMAC_ERR_INVALID_ARGUMENT
    );
    assert!(last().contains("scope 3"), "{}", last());
    assert_eq!(get(h, "state", SDMAC_SCOPE_PACKET, 42), Err(SDMAC_ERR_NO_SUCH_PACKET));
    let mut small = [0 as c_char; 4];
    assert_eq!(
        unsafe { sdmac_get(h, c"address".as_ptr(), 0, 0, small.as_mut_ptr(), small.len()) },
        SDMAC_ERR_BUFFER_TOO_SMALL
    );
    assert!(last().contains("needs 18 bytes"), "{}", last());
    unsafe { sdmac_close(h) };
}

#[test]
fn a_confirmed_one_shot_and_a_cancel() {
    let h = open("emu");
    let body = [0x5au8; 50];
    let mut a = attrs();
    a.has_dst = 1;
    a.dst = [2, 0, 0, 0, 0, 1];
    a.rates = c"54x1".as_ptr();
    let mut c = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
    unsafe {
        assert_eq!(sdmac_data_req(h, 7, body.as_ptr(), body.len(), &a), SDMAC_OK, "{}", last());
        assert_eq!(sdmac_data_con(h, 5_000_000_000, c.as_mut_ptr()), SDMAC_OK, "{}", last());
        let c = c.assume_init();
        assert_eq!(
            (c.id, c.status, c.drop_reason, c.ac, c.attempts, c.n_rates, c.len),
            (
                7,
                sdmac_status::SDMAC_STATUS_ACKED,
                sdmac_drop_reason::SDMAC_DROP_NONE,
                sdmac_ac::SDMAC_AC_BE,
                1,
                1,
                86
            )
        );
        assert_eq!(
            (c.rates[0].kbps, c.rates[0].attempts, cstr(&c.rates[0].name)),
            (54_000, 1, "54")
        );
        assert_eq!((c.has_truth, c.delivered, cstr(&c.set), cstr(&c.cause)), (1, 1, "A", "none"));
        let t = c.ts;
        assert!(
            t.t1 != 0
                && t.t1 <= t.t2
                && t.t2 <= t.t3
                && t.t_start < t.t5
                && t.t5 <= t.t7
                && t.t7 <= t.t9
        );
        assert_eq!(t.t5 - t.t_start, 96_000, "DATA 36 + SIFS 16 + ACK 44 µs");

        // A packet that had to reach channel access 1 ns after boot: dropped, unsent.
        a.not_after_ns = 1;
        assert_eq!(sdmac_data_req(h, 8, body.as_ptr(), body.len(), &a), SDMAC_OK, "{}", last());
        let mut c = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
        assert_eq!(sdmac_data_con(h, 5_000_000_000, c.as_mut_ptr()), SDMAC_OK, "{}", last());
        let c = c.assume_init();
        assert_eq!(
            (c.id, c.status, c.drop_reason, c.attempts),
            (8, sdmac_status::SDMAC_STATUS_DROPPED, sdmac_drop_reason::SDMAC_DROP_LATE, 0)
        );
        a.not_after_ns = 0;

        // Many queued at 6 Mb/s: the last one is still queued and can be cancelled.
        a.rates = c"6x1".as_ptr();
        let big = [0u8; 1500];
        for id in 10..20 {
            assert_eq!(sdmac_data_req(h, id, big.as_ptr(), big.len(), &a), SDMAC_OK, "{}", last());
        }
        let mut was = -1;
        assert_eq!(sdmac_cancel(h, 19, &mut was), SDMAC_OK);
        assert_eq!(was, 1);
        let mut len = 99usize;
        assert_eq!(sdmac_queue_len(h, sdmac_ac::SDMAC_AC_BE as i32, &mut len), SDMAC_OK);
        assert!(len < 10, "{len}");
        let mut dropped = 0;
        let mut c = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
        for _ in 10..20 {
            assert_eq!(sdmac_data_con(h, 5_000_000_000, c.as_mut_ptr()), SDMAC_OK, "{}", last());
            let c = c.assume_init();
            if c.status == sdmac_status::SDMAC_STATUS_DROPPED {
                assert_eq!((c.id, c.drop_reason), (19, sdmac_drop_reason::SDMAC_DROP_CANCELLED));
                dropped += 1;
            }
        }
        assert_eq!(dropped, 1);
        let mut b = std::mem::MaybeUninit::<sdmac_beacon>::uninit();
        assert_eq!(sdmac_beacon_ind(h, 2_000_000_000, b.as_mut_ptr()), SDMAC_OK, "{}", last());
        let b = b.assume_init();
        assert_eq!((b.bssid, b.seq >= 1), ([2, 0, 0, 0, 0, 1], true));
        assert_eq!(sdmac_close(h), SDMAC_OK);
    }
}

#[test]
fn an_indication_too_long_for_the_buffer_is_kept() {
    let h = open("emu");
    // With rx_management on, the AP's beacons come through data_ind as management frames.
    assert_eq!(
        set(h, "rx_management", sdmac_scope::SDMAC_SCOPE_ADAPTER, 0, "1"),
        SDMAC_OK,
        "{}",
        last()
    );
    let mut ind = std::mem::MaybeUninit::<sdmac_indication>::uninit();
    let mut small = [0u8; 8];
    let mut big = [0u8; 2400];
    unsafe {
        assert_eq!(
            sdmac_data_ind(h, 2_000_000_000, ind.as_mut_ptr(), small.as_mut_ptr(), small.len()),
            SDMAC_ERR_BUFFER_TOO_SMALL
        );
        let first = ind.assume_init();
        assert!(
            first.len > 8 && last().contains("kept for the next call"),
            "{} {}",
            first.len,
            last()
        );
        assert_eq!(
            sdmac_data_ind(h, 0, ind.as_mut_ptr(), big.as_mut_ptr(), big.len()),
            SDMAC_OK,
            "{}",
            last()
        );
        let again = ind.assume_init();
        assert_eq!(
            (again.id, again.len, again.kind),
            (first.id, first.len, sdmac_frame_kind::SDMAC_FRAME_MANAGEMENT)
        );
        assert_eq!((again.src, big[0]), ([2, 0, 0, 0, 0, 1], 0x80), "a beacon from the AP");
        assert_eq!(sdmac_close(h), SDMAC_OK);
    }
}

#[test]
fn a_handle_in_use_by_another_thread_is_busy() {
    struct Send(*mut sdmac_iface);
    unsafe impl std::marker::Send for Send {}
    // Each round another thread waits 1.5 s in data_con while this one looks at the
    // handle. A round in which this thread was held up until that call had ended
    // shows nothing either way, and is run again.
    for _round in 0..20 {
        let h = open("emu");
        let entering = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (p, e2) = (Send(h), entering.clone());
        let t = std::thread::spawn(move || {
            let p = p;
            let mut c = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
            e2.store(true, std::sync::atomic::Ordering::SeqCst);
            unsafe { sdmac_data_con(p.0, 1_500_000_000, c.as_mut_ptr()) }
        });
        while !entering.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::yield_now();
        }
        let mut len = 0usize;
        let busy = loop {
            let r = unsafe { sdmac_queue_len(h, 0, &mut len) };
            if r == SDMAC_ERR_BUSY {
                break true;
            }
            assert_eq!(r, SDMAC_OK, "{}", last());
            if t.is_finished() {
                break false;
            }
            std::thread::yield_now();
        };
        if !busy {
            assert_eq!(t.join().unwrap(), SDMAC_ERR_TIMEOUT);
            assert_eq!(unsafe { sdmac_close(h) }, SDMAC_OK);
            continue;
        }
        let closed = unsafe { sdmac_close(h) };
        assert_eq!(t.join().unwrap(), SDMAC_ERR_TIMEOUT);
        if closed == SDMAC_OK {
            // data_con had returned in between: the handle is closed; again.
            continue;
        }
        assert_eq!(closed, SDMAC_ERR_BUSY);
        // The call over, the handle is free again.
        unsafe {
            assert_eq!(sdmac_queue_len(h, 0, &mut len), SDMAC_OK);
            assert_eq!(sdmac_close(h), SDMAC_OK);
        }
        return;
    }
    panic!(
        "in 20 rounds this thread never found the handle busy while another was inside data_con"
    );
}

fn open_options(clock: i32) -> sdmac_open_options {
    let mut o = std::mem::MaybeUninit::uninit();
    assert_eq!(unsafe { sdmac_open_options_init(o.as_mut_ptr()) }, SDMAC_OK);
    let mut o: sdmac_open_options = unsafe { o.assume_init() };
    assert_eq!(o.clock, sdmac_clock::SDMAC_CLOCK_WALL as i32, "the default is the wall clock");
    o.clock = clock;
    o
}

#[test]
fn open_options_are_checked() {
    let virt = open_options(sdmac_clock::SDMAC_CLOCK_VIRTUAL as i32);
    let mut h = null_mut();
    unsafe {
        assert_eq!(sdmac_open_options_init(null_mut()), SDMAC_ERR_NULL);
        assert!(last().contains("opts is NULL"), "{}", last());
        assert_eq!(sdmac_open_with(c"emu".as_ptr(), null(), &mut h), SDMAC_ERR_NULL);
        assert!(h.is_null());
        assert!(last().contains("opts is NULL"), "{}", last());
        assert_eq!(sdmac_open_with(c"emu".as_ptr(), &virt, null_mut()), SDMAC_ERR_NULL);
        assert!(last().contains("out is NULL"), "{}", last());
        assert_eq!(
            sdmac_open_with(c"emu".as_ptr(), &open_options(7), &mut h),
            SDMAC_ERR_INVALID_ARGUMENT
        );
        assert!(h.is_null());
        assert_eq!(last(), "opts->clock 7 is no clock (SDMAC_CLOCK_WALL 0, SDMAC_CLOCK_VIRTUAL 1)");
        assert_eq!(
            sdmac_open_with(c"hwsim:wlan9".as_ptr(), &virt, &mut h),
            SDMAC_ERR_INVALID_ARGUMENT
        );
        assert!(h.is_null());
        assert!(
            last().starts_with(
                "opts->clock SDMAC_CLOCK_VIRTUAL: backend \"hwsim:wlan9\" runs on the wall clock"
            ),
            "{}",
            last()
        );
        assert_eq!(sdmac_open_with(c"wifi".as_ptr(), &virt, &mut h), SDMAC_ERR_BAD_NAME);
        assert!(last().contains("unknown kind of backend \"wifi\""), "{}", last());
    }
}

/// Ten confirmed one-shots on a handle opened with `clock`: each confirmation's
/// status, attempts and timestamps t1, t_start, t5, t9.
fn ten_one_shots(clock: sdmac_clock) -> Vec<(sdmac_status, u8, [u64; 4])> {
    let mut h = null_mut();
    let o = open_options(clock as i32);
    assert_eq!(unsafe { sdmac_open_with(c"emu".as_ptr(), &o, &mut h) }, SDMAC_OK, "{}", last());
    let body = [0x5au8; 50];
    let mut a = attrs();
    a.rates = c"54x1".as_ptr();
    let mut out = Vec::new();
    for id in 1..=10 {
        let mut c = std::mem::MaybeUninit::<sdmac_confirmation>::uninit();
        unsafe {
            assert_eq!(
                sdmac_data_req(h, id, body.as_ptr(), body.len(), &a),
                SDMAC_OK,
                "{}",
                last()
            );
            assert_eq!(sdmac_data_con(h, 5_000_000_000, c.as_mut_ptr()), SDMAC_OK, "{}", last());
            let c = c.assume_init();
            out.push((c.status, c.attempts, [c.ts.t1, c.ts.t_start, c.ts.t5, c.ts.t9]));
        }
        // Wall time passing between requests does not move the virtual clock.
        std::thread::sleep(std::time::Duration::from_micros(300));
    }
    assert_eq!(unsafe { sdmac_close(h) }, SDMAC_OK);
    out
}

#[test]
fn the_virtual_clock_gives_the_same_run_twice() {
    let a = ten_one_shots(sdmac_clock::SDMAC_CLOCK_VIRTUAL);
    let b = ten_one_shots(sdmac_clock::SDMAC_CLOCK_VIRTUAL);
    assert_eq!(a, b, "one seed, one run, times included");
    // Medium time 0 is API time 1 s (VIRTUAL_ORIGIN), and time stood still until the
    // first request waited.
    assert_eq!(a[0].2[0], 1_000_000_000, "{a:?}");
    assert!(a.iter().all(|(s, n, _)| *s == sdmac_status::SDMAC_STATUS_ACKED && *n == 1), "{a:?}");
    // On the wall clock t1 is CLOCK_MONOTONIC: not the virtual origin.
    let w = ten_one_shots(sdmac_clock::SDMAC_CLOCK_WALL);
    assert_ne!(w[0].2[0], 1_000_000_000, "{w:?}");
}
