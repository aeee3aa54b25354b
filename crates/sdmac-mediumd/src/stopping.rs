//! What the two drivers of the daemon's loop share in flushing their capture and in
//! stopping: the capture reaches its file before the driver answers the frames still
//! in flight, and again after, whatever answering them returned. On one thread the
//! driver owns its [`Capture`]; with `--threads` it shares it with the workers behind
//! a mutex ([`HeldCapture`] covers both).

use crate::capture::Capture;
use crate::control_clients::Clients;
use crate::error::{io_err, DaemonError};
use crate::event_loop::Stopped;
use crate::kernel_side::KernelSide;
use crate::poller::Poller;
use sdmac_medium::Time;
use std::io;
use std::sync::{Arc, Mutex};

/// A capture as a driver holds it.
pub(crate) trait HeldCapture {
    /// Writes what was recorded to the file.
    fn flush_held(&mut self) -> io::Result<()>;
}

impl HeldCapture for Capture {
    fn flush_held(&mut self) -> io::Result<()> {
        self.flush()
    }
}

impl HeldCapture for Arc<Mutex<Capture>> {
    fn flush_held(&mut self) -> io::Result<()> {
        // A worker that panicked while holding it leaves the capture usable.
        self.lock().unwrap_or_else(|e| e.into_inner()).flush()
    }
}

/// A driver's capture and its own way of answering what is still in flight; the
/// provided methods are the drivers' `flush_capture` and `stop`.
pub(crate) trait Stopping {
    /// How the driver holds its capture.
    type Capture: HeldCapture;

    /// Its capture, if it writes one.
    fn held_capture(&mut self) -> Option<&mut Self::Capture>;

    /// Answers every frame still in flight (the driver's own part of stopping).
    fn finish(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError>;

    /// Flushes the capture to its file (nothing without one).
    fn flush_held_capture(&mut self) -> Result<(), DaemonError> {
        match self.held_capture() {
            Some(c) => c.flush_held().map_err(io_err("capture file")),
            None => Ok(()),
        }
    }

    /// Flushes the capture, finishes, and flushes the capture again even when
    /// finishing failed; finishing's error comes before the flush's.
    fn stop_and_flush(
        &mut self,
        now: &dyn Fn() -> Time,
        kernel: &mut dyn KernelSide,
        clients: &mut Clients,
        poller: &Poller,
    ) -> Result<Stopped, DaemonError> {
        // What was captured reaches the file first, whatever happens next.
        self.flush_held_capture()?;
        let finished = self.finish(now, kernel, clients, poller);
        let flushed = self.flush_held_capture();
        let stopped = finished?;
        flushed?;
        Ok(stopped)
    }
}
