//! A backend seen on the TSF time base: every time in and out is mapped through a
//! [`TsfSync`] that beacons keep feeding.

use super::sync::TsfSync;
use sdmac_api::{
    Ac, ApiError, Backend, BeaconInd, Body, Confirmation, Indication, Interface, Span, Time,
    TxAttrs, Wait,
};

/// An interface whose clock is the AP's TSF (ns) as its [`TsfSync`] maps it.
///
/// Overlay code written against [`Interface`] runs on it unchanged and does all its
/// arithmetic on the TSF: [`Backend::now`], the timestamps of confirmations and
/// indications, and the times of requests (`t1`, `not_before`, `not_after`) are
/// mapped between the local clock and the TSF through the current fit, so that slot
/// boundaries defined on the TSF land where the fit puts them on this host. Every call
/// that reads confirmations or indications first drains the backend's beacons into
/// the fit (beacon indications with a TSF, and beacons that come up as management
/// frames), so the fit follows the drift for as long as the overlay runs. Waits
/// (`Wait::For`) are durations and pass unchanged: over one wait the drift is far
/// below the clock's resolution.
#[derive(Debug)]
pub struct TsfClock<'a, B: Backend> {
    inner: &'a mut Interface<B>,
    sync: TsfSync,
}

impl<'a, B: Backend> TsfClock<'a, B> {
    /// `inner` on the TSF time base of `sync`, which must have seen a beacon.
    pub fn new(inner: &'a mut Interface<B>, sync: TsfSync) -> Result<TsfClock<'a, B>, ApiError> {
        if sync.error().is_none() {
            return Err(ApiError::Unsupported {
                what: "a TSF time base before any beacon was heard".into(),
            });
        }
        Ok(TsfClock { inner, sync })
    }

    /// The fit as it stands.
    pub fn sync(&self) -> &TsfSync {
        &self.sync
    }

    /// Feeds `sync` from `iface` until it has observed `beacons` beacons or `limit`
    /// has passed (local clock); returns the beacons observed. Beacon indications
    /// with a TSF count, and beacons that come up as management frames (emu with
    /// `rx_management` on); other indications read meanwhile are discarded.
    pub fn warm_up(
        iface: &mut Interface<B>,
        sync: &mut TsfSync,
        beacons: u64,
        limit: Span,
    ) -> Result<u64, ApiError> {
        let end = iface.now().saturating_add(limit);
        let mut buf = Vec::new();
        while sync.observed() < beacons {
            let now = iface.now();
            if now >= end {
                break;
            }
            while let Some(b) = iface.beacon_ind(Wait::NoWait)? {
                sync.observe_beacon(&b);
            }
            let w: std::time::Duration = (end - now).into();
            let w = w.min(std::time::Duration::from_millis(5));
            if let Some(ind) = iface.data_ind(&mut buf, Wait::For(w))? {
                sync.observe_frame(&ind, &buf[..ind.len.min(buf.len())]);
            }
        }
        Ok(sync.observed())
    }

    fn feed(&mut self) -> Result<(), ApiError> {
        while let Some(b) = self.inner.beacon_ind(Wait::NoWait)? {
            self.sync.observe_beacon(&b);
        }
        Ok(())
    }

    /// Local time → TSF time; zero (no time recorded) stays zero.
    fn tsf(&self, t: Time) -> Time {
        if t.is_zero() {
            return t;
        }
        self.sync.to_tsf(t).map_or(t, Time::from_ns)
    }

    /// TSF time → local time; zero stays zero.
    fn local(&self, t: Time) -> Time {
        if t.is_zero() {
            return t;
        }
        self.sync.to_local(t.as_ns()).unwrap_or(t)
    }
}

impl<B: Backend> Backend for TsfClock<'_, B> {
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        let attrs = TxAttrs {
            not_before: attrs.not_before.map(|t| self.local(t)),
            not_after: attrs.not_after.map(|t| self.local(t)),
            ..*attrs
        };
        let t1 = self.local(t1);
        self.inner.data_req_at(t1, id, body, ac, &attrs)
    }

    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        self.feed()?;
        let Some(mut c) = self.inner.data_con(wait)? else { return Ok(None) };
        let ts = &mut c.ts;
        for t in [
            &mut ts.t1,
            &mut ts.t2,
            &mut ts.t3,
            &mut ts.t4,
            &mut ts.t_start,
            &mut ts.t_last_start,
            &mut ts.t_data_end,
            &mut ts.t5,
            &mut ts.t7,
            &mut ts.t8,
            &mut ts.t9,
        ] {
            *t = self.tsf(*t);
        }
        Ok(Some(c))
    }

    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError> {
        self.feed()?;
        let Some(mut ind) = self.inner.data_ind(buf, wait)? else { return Ok(None) };
        self.sync.observe_frame(&ind, &buf[..ind.len.min(buf.len())]);
        let rx = &mut ind.rx;
        for t in [&mut rx.t_start, &mut rx.t_end, &mut rx.t_published, &mut rx.t_returned] {
            *t = self.tsf(*t);
        }
        Ok(Some(ind))
    }

    fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
        let Some(mut b) = self.inner.beacon_ind(wait)? else { return Ok(None) };
        self.sync.observe_beacon(&b);
        for t in [&mut b.t_start, &mut b.t_end, &mut b.t_published] {
            *t = self.tsf(*t);
        }
        Ok(Some(b))
    }

    fn now(&self) -> Time {
        self.tsf(self.inner.now())
    }

    sdmac_api::forward_backend!(
        |s| &mut *s.inner, &*s.inner;
        except data_req, data_con, data_ind, beacon_ind, now
    );
}
