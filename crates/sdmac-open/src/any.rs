//! One backend type for every backend.

use sdmac_api::{
    ApiError, Backend, BeaconInd, Body, Confirmation, Indication, Interface, Scope, TxAttrs, Value,
    Wait,
};
use sdmac_medium::Ac;
use std::os::fd::RawFd;

/// Implements [`Backend`] by forwarding every primitive to the backend that
/// `self.$mut_()` and `self.$ref_()` return.
macro_rules! forward_backend {
    ($mut_:ident, $ref_:ident) => {
        #[inline]
        fn data_req(
            &mut self,
            id: u64,
            body: Body<'_>,
            ac: Ac,
            attrs: &TxAttrs,
            t1: sdmac_api::Time,
        ) -> Result<(), ApiError> {
            self.$mut_().data_req(id, body, ac, attrs, t1)
        }
        #[inline]
        fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
            self.$mut_().data_con(wait)
        }
        fn data_ind(
            &mut self,
            buf: &mut Vec<u8>,
            wait: Wait,
        ) -> Result<Option<Indication>, ApiError> {
            self.$mut_().data_ind(buf, wait)
        }
        fn beacon_ind(&mut self, wait: Wait) -> Result<Option<BeaconInd>, ApiError> {
            self.$mut_().beacon_ind(wait)
        }
        fn set(&mut self, name: &str, scope: Scope, value: &Value) -> Result<(), ApiError> {
            self.$mut_().set(name, scope, value)
        }
        fn get(&mut self, name: &str, scope: Scope) -> Result<Value, ApiError> {
            self.$mut_().get(name, scope)
        }
        fn cancel(&mut self, id: u64) -> Result<bool, ApiError> {
            self.$mut_().cancel(id)
        }
        fn queue_len(&self, ac: Ac) -> usize {
            self.$ref_().queue_len(ac)
        }
        fn unconfirmed(&self) -> usize {
            self.$ref_().unconfirmed()
        }
        fn event_fd(&mut self) -> Option<RawFd> {
            self.$mut_().event_fd()
        }
        fn timed_sends(&self) -> bool {
            self.$ref_().timed_sends()
        }
        #[inline]
        fn now(&self) -> sdmac_api::Time {
            self.$ref_().now()
        }
    };
}
pub(crate) use forward_backend;

/// Any backend, behind one type: what [`crate::open`] returns, whichever backend
/// the name chose. It owns everything the backend needs (for `emu`, the emulated
/// medium and its device thread), so dropping it closes the backend.
pub struct AnyBackend {
    label: String,
    inner: Box<dyn Backend + Send>,
}

/// The interface type of every backend.
pub type AnyInterface = Interface<AnyBackend>;

impl AnyBackend {
    /// Wraps a backend; `label` says which (the backend name, or an interface name).
    pub fn new(label: impl Into<String>, backend: impl Backend + Send + 'static) -> AnyBackend {
        AnyBackend { label: label.into(), inner: Box::new(backend) }
    }

    /// Wraps the backend of an interface (e.g. one taken from an
    /// [`sdmac_emu::EmuSession`] the caller keeps running).
    pub fn from_interface<B: Backend + Send + 'static>(
        label: impl Into<String>,
        iface: Interface<B>,
    ) -> AnyBackend {
        AnyBackend::new(label, InInterface(iface))
    }

    /// Which backend this is (the name it was opened with).
    pub fn label(&self) -> &str {
        &self.label
    }
}

impl std::fmt::Debug for AnyBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnyBackend").field("label", &self.label).finish()
    }
}

impl AnyBackend {
    fn inner_mut(&mut self) -> &mut (dyn Backend + Send) {
        &mut *self.inner
    }
    fn inner_ref(&self) -> &(dyn Backend + Send) {
        &*self.inner
    }
}

impl Backend for AnyBackend {
    forward_backend!(inner_mut, inner_ref);
}

/// The backend inside an [`Interface`] (which has no way to give it back).
struct InInterface<B: Backend>(Interface<B>);

impl<B: Backend> InInterface<B> {
    fn inner_mut(&mut self) -> &mut B {
        self.0.backend_mut()
    }
    fn inner_ref(&self) -> &B {
        self.0.backend()
    }
}

impl<B: Backend> Backend for InInterface<B> {
    forward_backend!(inner_mut, inner_ref);
}
