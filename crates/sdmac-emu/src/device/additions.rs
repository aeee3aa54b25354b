//! Stations added while the session runs: the session builds an interface's rings and
//! hands its device end over here; the device thread puts the station on the medium,
//! takes the interface and answers with the station's id.

use super::DevIface;
use sdmac_medium::{StationConfig, StationId};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Mutex;

/// One station to add.
pub(crate) struct Addition {
    /// Its configuration on the medium.
    pub cfg: StationConfig,
    /// The device's side of its interface (`station` is set when it is added).
    pub iface: DevIface,
    /// Where the station's id (or why it was refused) goes.
    pub reply: SyncSender<Result<StationId, String>>,
}

/// The stations waiting to be added.
#[derive(Default)]
pub(crate) struct Additions {
    pending: AtomicBool,
    list: Mutex<Vec<Addition>>,
}

impl std::fmt::Debug for Additions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Additions").field("pending", &self.is_pending()).finish()
    }
}

impl Additions {
    /// Queues `a` for the device (the caller then wakes it).
    pub fn push(&self, a: Addition) {
        self.list.lock().unwrap_or_else(|e| e.into_inner()).push(a);
        self.pending.store(true, Ordering::Release);
    }

    /// Whether a station waits to be added.
    pub fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// Takes every station waiting.
    pub fn take(&self) -> Vec<Addition> {
        let mut l = self.list.lock().unwrap_or_else(|e| e.into_inner());
        self.pending.store(false, Ordering::Release);
        std::mem::take(&mut *l)
    }
}
