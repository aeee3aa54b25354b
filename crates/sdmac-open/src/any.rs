//! One backend type for every backend.

use sdmac_api::{Backend, Interface};

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

impl Backend for AnyBackend {
    sdmac_api::forward_backend!(|s| &mut *s.inner, &*s.inner);
}

/// The backend inside an [`Interface`] (which has no way to give it back).
struct InInterface<B: Backend>(Interface<B>);

impl<B: Backend> Backend for InInterface<B> {
    // To the backend itself: the interface around this one takes the timestamps.
    sdmac_api::forward_backend!(|s| s.0.backend_mut(), s.0.backend());
}
