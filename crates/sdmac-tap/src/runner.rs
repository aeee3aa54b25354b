//! One thread for every station's data path and the emulated medium
//! (`sdmac tap --one-thread`): a run-to-completion loop in the manner of a DPDK
//! poll-mode core.
//!
//! Each pass of the loop runs a pass of every station's [`StationPath`] (TAP reads
//! become requests, indications become TAP writes) and then passes of the medium's
//! [`EmuDriver`] until it has nothing due, so a frame read from one station's TAP
//! device goes on air, is received and is written to the other station's TAP device
//! without leaving the thread: no hand-off between threads, no wake-up and no
//! eventfd per frame. When nothing is to do the loop sleeps in one `ppoll` over every
//! TAP device, until the medium's next event at the latest (with `--busy-poll` it
//! never sleeps). A medium event whose time passes while the loop sleeps or works is
//! processed at the next pass, at its own time on the medium: the medium's order and
//! timing are kept, and only the instant each outcome reaches its station is late.
//!
//! Stations come and go while it runs: [`Runner::add`] hands a path over, and its
//! [`PathHandle`] stops it and gives back its counters. A path that fails, or panics,
//! ends alone; the others keep running.

use crate::datapath::{PathError, StationPath, Stats};
use crate::netns::TapDevice;
use sdmac_api::{Backend, Interface};
use sdmac_emu::EmuDriver;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;

/// What a station's data path ends with: its counters, and why it stopped early.
pub type Outcome = (Stats, Option<String>);

/// Requests a station's owner makes of its interface between passes (its transmit
/// power, ...): called with the interface after each of the path's passes.
pub type Between<B> = Box<dyn FnMut(&mut Interface<B>) + Send>;

/// A station's data path handed to the loop.
struct Entry<B: Backend> {
    path: StationPath<B>,
    /// Kept open as long as the path runs.
    tap: TapDevice,
    stop: Arc<AtomicBool>,
    between: Between<B>,
    label: String,
    done: SyncSender<Outcome>,
    finished: Finished,
    /// What a poll found wrong with its TAP device; it ends the path at the next pass.
    failed: Option<PathError>,
}

/// Marks a path ended when dropped: after its outcome is sent, or when the loop's
/// thread unwinds from a panic (its owner then learns it ended, with no outcome).
#[derive(Debug)]
struct Finished(Arc<AtomicBool>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// The owner's side of a station served by the loop.
#[derive(Debug)]
pub struct PathHandle {
    stop: Arc<AtomicBool>,
    done: Receiver<Outcome>,
    finished: Arc<AtomicBool>,
}

impl PathHandle {
    /// Whether the path has ended (stopped, failed, or the loop is gone).
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// Stops the path and waits for its outcome; `None` if the loop's thread died.
    pub fn join(self) -> Option<Outcome> {
        self.stop.store(true, Ordering::Relaxed);
        self.done.recv().ok()
    }
}

/// The loop's thread, and where new paths go in.
#[derive(Debug)]
pub struct Runner<B: Backend + Send + 'static> {
    add: Option<SyncSender<Entry<B>>>,
    thread: Option<JoinHandle<()>>,
}

impl<B: Backend + Send + 'static> std::fmt::Debug for Entry<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("label", &self.label).finish()
    }
}

/// How long the loop sleeps at most when a path has a management thread (whose
/// frames wake no poll), and otherwise, in ns.
const WAIT_MGMT_NS: u64 = 5_000_000;
const WAIT_NS: u64 = 50_000_000;

impl<B: Backend + Send + 'static> Runner<B> {
    /// Starts the loop on a thread named `sdmac-tap-loop`, running `driver` (the
    /// emulated medium; `None` for radios, which run on their own) after every pass
    /// of the paths. With `busy_poll` it never sleeps; with `realtime` it runs under
    /// SCHED_FIFO at that priority (a refusal is printed, and it runs on without).
    pub fn start(
        driver: Option<EmuDriver>,
        busy_poll: bool,
        realtime: Option<i32>,
    ) -> std::io::Result<Runner<B>> {
        let (add, rx) = sync_channel::<Entry<B>>(64);
        let thread =
            std::thread::Builder::new().name("sdmac-tap-loop".into()).spawn(move || {
                if let Some(p) = realtime {
                    if let Err(e) = sdmac_rt::affinity::realtime_current(p) {
                        eprintln!("sdmac-tap: the data-path loop: --realtime {p}: {e}");
                    }
                }
                serve(rx, driver, busy_poll)
            })?;
        Ok(Runner { add: Some(add), thread: Some(thread) })
    }

    /// Hands station `label`'s path (and its TAP device, kept open while it runs)
    /// to the loop.
    pub fn add(
        &self,
        path: StationPath<B>,
        tap: TapDevice,
        between: Between<B>,
        label: String,
    ) -> Result<PathHandle, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let (done, done_rx) = sync_channel(1);
        let e = Entry {
            path,
            tap,
            stop: stop.clone(),
            between,
            label,
            done,
            finished: Finished(finished.clone()),
            failed: None,
        };
        let Some(add) = &self.add else { return Err("the data-path loop has ended".into()) };
        add.send(e).map_err(|_| "the data-path loop has ended (did it panic?)".to_string())?;
        Ok(PathHandle { stop, done: done_rx, finished })
    }

    /// Ends the loop once every path is stopped (stop them first: their handles'
    /// [`PathHandle::join`]) and waits for it; the medium's driver ends with it.
    /// False if the loop's thread panicked.
    pub fn finish(&mut self) -> bool {
        self.add = None;
        self.thread.take().is_none_or(|t| t.join().is_ok())
    }
}

impl<B: Backend + Send + 'static> Drop for Runner<B> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The loop (see the module's documentation).
fn serve<B: Backend>(rx: Receiver<Entry<B>>, mut driver: Option<EmuDriver>, busy_poll: bool) {
    // Sleeps end when asked, not up to 50 µs later (the default slack).
    // SAFETY: prctl with an integer argument changes only this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    let mut entries: Vec<Entry<B>> = Vec::new();
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut open = true;
    loop {
        while open {
            match rx.try_recv() {
                Ok(e) => entries.push(e),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => open = false,
            }
        }
        if !open && entries.is_empty() {
            break;
        }
        let mut work = 0;
        let mut k = 0;
        while k < entries.len() {
            let e = &mut entries[k];
            let r = if let Some(err) = e.failed.take() {
                Err(Some(err))
            } else if e.stop.load(Ordering::Relaxed) {
                Err(None)
            } else {
                // A path that panics ends alone, as a station thread of its own would:
                // its owner finds it ended without an outcome.
                let pass = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let n = e.path.pass()?;
                    (e.between)(e.path.interface());
                    Ok::<usize, PathError>(n)
                }));
                match pass {
                    Ok(Ok(n)) => {
                        work += n;
                        Ok(())
                    }
                    Ok(Err(err)) => Err(Some(err)),
                    Err(_) => {
                        drop(entries.swap_remove(k));
                        continue;
                    }
                }
            };
            match r {
                Ok(()) => k += 1,
                Err(err) => end(entries.swap_remove(k), err),
            }
        }
        if let Some(d) = driver.as_mut() {
            while d.pass() {
                work += 1;
            }
        }
        if work > 0 || busy_poll {
            continue;
        }
        wait(&mut entries, &mut fds, driver.as_ref());
    }
    // The driver, dropped here, ends the emulated medium.
}

/// Ends a path: its counters and why it stopped go to its handle.
fn end<B: Backend>(e: Entry<B>, err: Option<PathError>) {
    if let Some(err) = &err {
        eprintln!("sdmac-tap: station {}: {err}; the other stations keep running", e.label);
    }
    let Entry { path, tap, done, finished, .. } = e;
    let stats = path.stats.clone();
    drop(path);
    drop(tap);
    let _ = done.send((stats, err.map(|e| e.to_string())));
    drop(finished);
}

/// Sleeps until a TAP device has a frame (for a path with room for it), an
/// interface signals, or the medium's next event is due, whichever is first.
fn wait<B: Backend>(
    entries: &mut [Entry<B>],
    fds: &mut Vec<libc::pollfd>,
    driver: Option<&EmuDriver>,
) {
    let now = sdmac_rt::monotonic_ns();
    let mut timeout =
        if entries.iter().any(|e| e.path.has_management()) { WAIT_MGMT_NS } else { WAIT_NS };
    if let Some(next) = driver.and_then(EmuDriver::next_due) {
        timeout = timeout.min(next.saturating_sub(now));
    }
    if timeout == 0 {
        return;
    }
    fds.clear();
    for e in entries.iter() {
        // A path on io_uring has no descriptors to poll here; the timeout bounds its
        // wait (the runner is meant for one read or write per frame).
        if let Some(p) = e.path.poll_fds() {
            fds.extend_from_slice(&p);
        }
    }
    let ts = libc::timespec {
        tv_sec: (timeout / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `fds` holds fds.len() valid pollfd structs (negative descriptors are
    // ignored); the timespec is a valid local; no signal mask is changed.
    let n =
        unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    if n < 0 {
        // EINTR (a signal): the loop goes round and looks again.
        return;
    }
    let mut i = 0;
    for e in entries.iter_mut() {
        // The paths that added descriptors above: those without a ring.
        if e.path.io_uring().is_none() {
            // Each path counts the waits it took part in.
            e.path.count_syscalls(1);
            let pair = [fds[i], fds[i + 1]];
            i += 2;
            if let Err(err) = e.path.polled(&pair) {
                e.failed = Some(err);
            }
        }
    }
}
