//! Wrapping a backend: [`forward_backend!`](crate::forward_backend) writes the
//! [`Backend`] methods a wrapper passes on unchanged, so that the wrapper writes
//! only those it changes, and a method added to [`Backend`] reaches every wrapper
//! without editing it.
//!
//! Written inside `impl Backend for Wrapper`, the macro defines every method of
//! [`Backend`] not named after `except`, each calling the same method of the backend
//! inside. Where that backend is depends on the wrapper, so the macro takes two
//! expressions: the backend lent mutably (for the `&mut self` methods) and shared
//! (for the `&self` ones), written on a name that stands for `self`:
//!
//! ```
//! use sdmac_api::{ApiError, Backend, Confirmation, Interface, Wait};
//!
//! /// Counts the confirmations read through it; passes everything else on.
//! struct Counting<B: Backend> {
//!     inner: Interface<B>,
//!     confirmed: u64,
//! }
//!
//! impl<B: Backend> Backend for Counting<B> {
//!     fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
//!         let c = self.inner.data_con(wait)?;
//!         self.confirmed += u64::from(c.is_some());
//!         Ok(c)
//!     }
//!     sdmac_api::forward_backend!(|s| &mut s.inner, &s.inner; except data_con);
//! }
//! ```
//!
//! - `|s| MUT, SHARED` names the inner backend: a field (`&mut s.inner, &s.inner`),
//!   a boxed or borrowed one (`&mut *s.inner, &*s.inner`), or what accessors return
//!   (`s.iface.backend_mut(), s.iface.backend()`).
//! - `match { PATTERN, ... } => MUT, SHARED` is the form for an enum whose every
//!   variant holds a backend: each pattern binds the variant's contents, and the two
//!   expressions (written once, for every variant) name the backend in them, e.g.
//!   `match { Self::Emu(i), Self::Radio(i) } => i.backend_mut(), i.backend()`.
//! - `; except NAME, ...` lists the methods the wrapper defines itself (or, for
//!   [`Backend::now`], leaves to the trait's default). A name that is not a method
//!   of [`Backend`] is a compile error:
//!
//! ```compile_fail
//! # use sdmac_api::{Backend, Interface};
//! struct W<B: Backend>(Interface<B>);
//! impl<B: Backend> Backend for W<B> {
//!     sdmac_api::forward_backend!(|s| &mut s.0, &s.0; except data_confirm);
//! }
//! ```
//!
//! The forwarding calls go through [`Backend`] itself, never an inherent method of
//! the same name. A wrapper holding an [`Interface`] therefore forwards to the
//! interface as a backend (below): requests keep their t1 and the interface's check
//! of timed requests, and confirmations and indications get the interface's t9 and
//! t_returned, exactly as when the wrapper calls the interface's own methods.

use crate::backend::{Backend, Wait};
use crate::confirmation::Confirmation;
use crate::error::ApiError;
use crate::indication::Indication;
use crate::interface::Interface;
use crate::request::{Body, TxAttrs};
use sdmac_types::{Ac, Time};

/// Implements the [`Backend`] methods a wrapper does not define by forwarding each
/// to the backend inside it (see [the module](crate::forward) for the forms).
#[macro_export]
macro_rules! forward_backend {
    // Every method of `Backend`, each given to @maybe with the names to leave out.
    (@all $spec:tt $skip:tt) => {
        $crate::forward_backend!(@maybe $spec data_req $skip);
        $crate::forward_backend!(@maybe $spec data_con $skip);
        $crate::forward_backend!(@maybe $spec data_ind $skip);
        $crate::forward_backend!(@maybe $spec beacon_ind $skip);
        $crate::forward_backend!(@maybe $spec set $skip);
        $crate::forward_backend!(@maybe $spec get $skip);
        $crate::forward_backend!(@maybe $spec cancel $skip);
        $crate::forward_backend!(@maybe $spec queue_len $skip);
        $crate::forward_backend!(@maybe $spec unconfirmed $skip);
        $crate::forward_backend!(@maybe $spec event_fd $skip);
        $crate::forward_backend!(@maybe $spec timed_sends $skip);
        $crate::forward_backend!(@maybe $spec now $skip);
    };

    // Emits method `$m` unless it is in the list: walks the list, stopping at a match.
    (@maybe $spec:tt $m:ident []) => { $crate::forward_backend!(@emit $spec $m); };
    (@maybe $spec:tt data_req [data_req $($r:ident)*]) => {};
    (@maybe $spec:tt data_con [data_con $($r:ident)*]) => {};
    (@maybe $spec:tt data_ind [data_ind $($r:ident)*]) => {};
    (@maybe $spec:tt beacon_ind [beacon_ind $($r:ident)*]) => {};
    (@maybe $spec:tt set [set $($r:ident)*]) => {};
    (@maybe $spec:tt get [get $($r:ident)*]) => {};
    (@maybe $spec:tt cancel [cancel $($r:ident)*]) => {};
    (@maybe $spec:tt queue_len [queue_len $($r:ident)*]) => {};
    (@maybe $spec:tt unconfirmed [unconfirmed $($r:ident)*]) => {};
    (@maybe $spec:tt event_fd [event_fd $($r:ident)*]) => {};
    (@maybe $spec:tt timed_sends [timed_sends $($r:ident)*]) => {};
    (@maybe $spec:tt now [now $($r:ident)*]) => {};
    (@maybe $spec:tt $m:ident [$other:ident $($r:ident)*]) => {
        $crate::forward_backend!(@maybe $spec $m [$($r)*]);
    };

    // Refuses a name after `except` that is not a method of `Backend`.
    (@check) => {};
    (@check data_req $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check data_con $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check data_ind $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check beacon_ind $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check set $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check get $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check cancel $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check queue_len $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check unconfirmed $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check event_fd $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check timed_sends $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check now $($r:ident)*) => { $crate::forward_backend!(@check $($r)*); };
    (@check $bad:ident $($r:ident)*) => {
        ::core::compile_error!(::core::concat!(
            "forward_backend!: `", ::core::stringify!($bad), "` is not a method of Backend"
        ));
    };

    // `$call` with `$b` bound to the inner backend (`mut`: lent mutably).
    (@call (one $s:ident $m:expr, $r:expr) $this:ident mut $b:ident $call:block) => {{
        let $s = $this;
        let $b = $m;
        $call
    }};
    (@call (one $s:ident $m:expr, $r:expr) $this:ident ref $b:ident $call:block) => {{
        let $s = $this;
        let $b = $r;
        $call
    }};
    (@call (each [$($p:pat),+] $m:expr, $r:expr) $this:ident mut $b:ident $call:block) => {
        match $this {
            $($p => {
                let $b = $m;
                $call
            })+
        }
    };
    (@call (each [$($p:pat),+] $m:expr, $r:expr) $this:ident ref $b:ident $call:block) => {
        match $this {
            $($p => {
                let $b = $r;
                $call
            })+
        }
    };

    // The methods, one rule each.
    (@emit $spec:tt data_req) => {
        #[inline]
        fn data_req(
            &mut self,
            id: u64,
            body: $crate::Body<'_>,
            ac: $crate::Ac,
            attrs: &$crate::TxAttrs,
            t1: $crate::Time,
        ) -> ::core::result::Result<(), $crate::ApiError> {
            $crate::forward_backend!(@call $spec self mut b {
                $crate::Backend::data_req(b, id, body, ac, attrs, t1)
            })
        }
    };
    (@emit $spec:tt data_con) => {
        #[inline]
        fn data_con(
            &mut self,
            wait: $crate::Wait,
        ) -> ::core::result::Result<::core::option::Option<$crate::Confirmation>, $crate::ApiError>
        {
            $crate::forward_backend!(@call $spec self mut b { $crate::Backend::data_con(b, wait) })
        }
    };
    (@emit $spec:tt data_ind) => {
        #[inline]
        fn data_ind(
            &mut self,
            buf: &mut ::std::vec::Vec<u8>,
            wait: $crate::Wait,
        ) -> ::core::result::Result<::core::option::Option<$crate::Indication>, $crate::ApiError>
        {
            $crate::forward_backend!(@call $spec self mut b {
                $crate::Backend::data_ind(b, buf, wait)
            })
        }
    };
    (@emit $spec:tt beacon_ind) => {
        #[inline]
        fn beacon_ind(
            &mut self,
            wait: $crate::Wait,
        ) -> ::core::result::Result<::core::option::Option<$crate::BeaconInd>, $crate::ApiError>
        {
            $crate::forward_backend!(@call $spec self mut b {
                $crate::Backend::beacon_ind(b, wait)
            })
        }
    };
    (@emit $spec:tt set) => {
        #[inline]
        fn set(
            &mut self,
            name: &str,
            scope: $crate::Scope,
            value: &$crate::Value,
        ) -> ::core::result::Result<(), $crate::ApiError> {
            $crate::forward_backend!(@call $spec self mut b {
                $crate::Backend::set(b, name, scope, value)
            })
        }
    };
    (@emit $spec:tt get) => {
        #[inline]
        fn get(
            &mut self,
            name: &str,
            scope: $crate::Scope,
        ) -> ::core::result::Result<$crate::Value, $crate::ApiError> {
            $crate::forward_backend!(@call $spec self mut b {
                $crate::Backend::get(b, name, scope)
            })
        }
    };
    (@emit $spec:tt cancel) => {
        #[inline]
        fn cancel(&mut self, id: u64) -> ::core::result::Result<bool, $crate::ApiError> {
            $crate::forward_backend!(@call $spec self mut b { $crate::Backend::cancel(b, id) })
        }
    };
    (@emit $spec:tt queue_len) => {
        #[inline]
        fn queue_len(&self, ac: $crate::Ac) -> usize {
            $crate::forward_backend!(@call $spec self ref b { $crate::Backend::queue_len(b, ac) })
        }
    };
    (@emit $spec:tt unconfirmed) => {
        #[inline]
        fn unconfirmed(&self) -> usize {
            $crate::forward_backend!(@call $spec self ref b { $crate::Backend::unconfirmed(b) })
        }
    };
    (@emit $spec:tt event_fd) => {
        #[inline]
        fn event_fd(&mut self) -> ::core::option::Option<::std::os::fd::RawFd> {
            $crate::forward_backend!(@call $spec self mut b { $crate::Backend::event_fd(b) })
        }
    };
    (@emit $spec:tt timed_sends) => {
        #[inline]
        fn timed_sends(&self) -> bool {
            $crate::forward_backend!(@call $spec self ref b { $crate::Backend::timed_sends(b) })
        }
    };
    (@emit $spec:tt now) => {
        #[inline]
        fn now(&self) -> $crate::Time {
            $crate::forward_backend!(@call $spec self ref b { $crate::Backend::now(b) })
        }
    };

    // The two forms.
    (|$s:ident| $m:expr, $r:expr $(; except $($skip:ident),+ $(,)?)?) => {
        $crate::forward_backend!(@check $($($skip)+)?);
        $crate::forward_backend!(@all (one $s $m, $r) [$($($skip)+)?]);
    };
    (match { $($p:pat),+ $(,)? } => $m:expr, $r:expr $(; except $($skip:ident),+ $(,)?)?) => {
        $crate::forward_backend!(@check $($($skip)+)?);
        $crate::forward_backend!(@all (each [$($p),+] $m, $r) [$($($skip)+)?]);
    };
}

/// An interface is a backend too, seen as the application sees it: a request keeps
/// the caller's t1 and is refused if timed where the backend cannot keep the time
/// ([`Interface::data_req_at`]); a confirmation gets t9 and an indication
/// t_returned. So a wrapper may hold an [`Interface`] and forward to it.
impl<B: Backend> Backend for Interface<B> {
    #[inline]
    fn data_req(
        &mut self,
        id: u64,
        body: Body<'_>,
        ac: Ac,
        attrs: &TxAttrs,
        t1: Time,
    ) -> Result<(), ApiError> {
        self.data_req_at(t1, id, body, ac, attrs)
    }
    #[inline]
    fn data_con(&mut self, wait: Wait) -> Result<Option<Confirmation>, ApiError> {
        Interface::data_con(self, wait)
    }
    #[inline]
    fn data_ind(&mut self, buf: &mut Vec<u8>, wait: Wait) -> Result<Option<Indication>, ApiError> {
        Interface::data_ind(self, buf, wait)
    }
    crate::forward_backend!(|s| s.backend_mut(), s.backend(); except data_req, data_con, data_ind);
}

#[cfg(test)]
mod tests;
