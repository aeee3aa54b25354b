//! The Python exceptions of the SDMAC primitives, and the error of each Rust error.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use sdmac_api::ApiError;
use sdmac_open::OpenError as RsOpenError;

create_exception!(
    sdmac._core,
    SdmacError,
    PyException,
    "Base class of the errors of the SDMAC primitives."
);
create_exception!(
    sdmac._core,
    QueueFull,
    SdmacError,
    "The AC queue is full; the packet was not queued."
);
create_exception!(
    sdmac._core,
    ConfirmationBacklog,
    SdmacError,
    "Too many confirmations are unread; call data_con first."
);
create_exception!(sdmac._core, TooLong, SdmacError, "The payload or frame is too long.");
create_exception!(
    sdmac._core,
    MalformedFrame,
    SdmacError,
    "A raw frame is not a valid 802.11 frame."
);
create_exception!(sdmac._core, InvalidId, SdmacError, "The id is out of range.");
create_exception!(sdmac._core, InvalidRequest, SdmacError, "A per-packet attribute is invalid.");
create_exception!(sdmac._core, UnknownAttribute, SdmacError, "No attribute has this name.");
create_exception!(
    sdmac._core,
    WrongScope,
    SdmacError,
    "The attribute belongs to another scope (adapter, queue, packet)."
);
create_exception!(sdmac._core, ReadOnly, SdmacError, "The attribute cannot be set.");
create_exception!(sdmac._core, InvalidValue, SdmacError, "The value does not fit the attribute.");
create_exception!(sdmac._core, NoSuchPacket, SdmacError, "No queued packet has this id.");
create_exception!(sdmac._core, PacketOnAir, SdmacError, "The packet is already on air.");
create_exception!(sdmac._core, Closed, SdmacError, "The session has ended.");
create_exception!(sdmac._core, Unsupported, SdmacError, "The backend does not offer this.");
create_exception!(
    sdmac._core,
    OpenError,
    SdmacError,
    "The backend cannot be opened (bad name, bad scenario, no such station)."
);
create_exception!(
    sdmac._core,
    BackendNotAvailable,
    OpenError,
    "The backend named is not available in this build."
);

/// The Python exception of an error of `open`.
pub(crate) fn open_err(e: RsOpenError) -> PyErr {
    match e {
        RsOpenError::NotAvailable { .. } => BackendNotAvailable::new_err(e.to_string()),
        _ => OpenError::new_err(e.to_string()),
    }
}

/// The Python exception of an API error.
pub(crate) fn api_err(e: ApiError) -> PyErr {
    let m = e.to_string();
    match e {
        ApiError::QueueFull { .. } => QueueFull::new_err(m),
        ApiError::ConfirmationBacklog { .. } => ConfirmationBacklog::new_err(m),
        ApiError::TooLong { .. } => TooLong::new_err(m),
        ApiError::MalformedFrame { .. } => MalformedFrame::new_err(m),
        ApiError::InvalidId { .. } => InvalidId::new_err(m),
        ApiError::InvalidRequest { .. } => InvalidRequest::new_err(m),
        ApiError::UnknownAttribute { .. } => UnknownAttribute::new_err(m),
        ApiError::WrongScope { .. } => WrongScope::new_err(m),
        ApiError::ReadOnly { .. } => ReadOnly::new_err(m),
        ApiError::InvalidValue { .. } => InvalidValue::new_err(m),
        ApiError::NoSuchPacket { .. } => NoSuchPacket::new_err(m),
        ApiError::PacketOnAir { .. } => PacketOnAir::new_err(m),
        ApiError::Closed => Closed::new_err(m),
        ApiError::Unsupported { .. } => Unsupported::new_err(m),
    }
}
