//! A small blocking client of the control socket: set and get through the daemon,
//! and read the truth stream.
//!
//! Each call sends one request and waits for its reply; truth records that arrive
//! meanwhile are kept, in order, for [`Client::next_record`].

use crate::ext::{
    encode_ext_request, Edca, ExtReply, ExtRequest, ExtResult, ReplyBody, TruthRecord,
};
use crate::mininet::{encode_request, Mac, Request, UpdateResult};
use crate::stream::{Incoming, IncomingDecoder, StreamError};
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// What went wrong with a call.
#[derive(Debug)]
pub enum ClientError {
    /// The socket failed, or the daemon closed it.
    Io(io::Error),
    /// The daemon sent something that is no message.
    Stream(StreamError),
    /// The daemon refused the request.
    Refused(ExtResult),
    /// A Mininet-WiFi request's reply said this.
    Update(UpdateResult),
    /// No reply came in time.
    Timeout,
    /// A reply that does not answer the request (tag or type).
    Unexpected(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "control socket: {e}"),
            ClientError::Stream(e) => write!(f, "{e}"),
            ClientError::Refused(r) => write!(f, "the medium daemon refused the request: {r}"),
            ClientError::Update(r) => write!(f, "the medium daemon answered {r:?}"),
            ClientError::Timeout => {
                write!(f, "control socket: no reply from the medium daemon in time")
            }
            ClientError::Unexpected(what) => write!(f, "control socket: unexpected reply: {what}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        ClientError::Io(e)
    }
}

/// A link as the daemon models it now.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LinkState {
    /// SNR (dB).
    pub snr_db: f64,
    /// Error probability of a frame.
    pub error_prob: f64,
}

/// A connection to the daemon's control socket.
#[derive(Debug)]
pub struct Client {
    stream: UnixStream,
    decoder: IncomingDecoder,
    records: VecDeque<TruthRecord>,
    next_tag: u32,
    /// How long a call waits for its reply.
    pub reply_timeout: Duration,
}

impl Client {
    /// Connects to the socket at `path`.
    pub fn connect(path: &Path) -> io::Result<Client> {
        Ok(Client::from_stream(UnixStream::connect(path)?))
    }

    /// A client on a connected stream.
    pub fn from_stream(stream: UnixStream) -> Client {
        Client {
            stream,
            decoder: IncomingDecoder::new(),
            records: VecDeque::new(),
            next_tag: 1,
            reply_timeout: Duration::from_secs(5),
        }
    }

    fn tag(&mut self) -> u32 {
        let t = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        t
    }

    /// Reads what the daemon sent until `want` takes a message or `deadline` passes
    /// (None: waits as long as it takes); truth records go to the queue.
    fn read_until(
        &mut self,
        deadline: Option<Instant>,
        mut want: impl FnMut(&mut Self, Incoming) -> Option<Incoming>,
    ) -> Result<Option<Incoming>, ClientError> {
        loop {
            while let Some(m) = self.decoder.next_message().map_err(ClientError::Stream)? {
                if let Some(m) = want(self, m) {
                    return Ok(Some(m));
                }
            }
            let wait = match deadline {
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Ok(None);
                    }
                    Some((d - now).max(Duration::from_millis(1)))
                }
                None => None,
            };
            self.stream.set_read_timeout(wait)?;
            let mut buf = [0u8; 8192];
            match self.stream.read(&mut buf) {
                Ok(0) => {
                    return Err(ClientError::Io(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the medium daemon closed the control socket",
                    )))
                }
                Ok(n) => self.decoder.push(&buf[..n]),
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Sends an extension request and waits for its reply.
    fn call(&mut self, req: ExtRequest) -> Result<ExtReply, ClientError> {
        self.stream.write_all(&encode_ext_request(&req))?;
        let tag = req.tag();
        let deadline = Instant::now() + self.reply_timeout;
        let got = self.read_until(Some(deadline), |c, m| match m {
            Incoming::Truth(r) => {
                c.records.push_back(r);
                None
            }
            m => Some(m),
        })?;
        match got {
            None => Err(ClientError::Timeout),
            Some(Incoming::Reply(r))
                if r.tag == tag
                    && (r.kind == req.type_byte() + 1 || r.kind == crate::ext::types::REFUSED) =>
            {
                match r.result {
                    ExtResult::Ok => Ok(r),
                    e => Err(ClientError::Refused(e)),
                }
            }
            Some(m) => Err(ClientError::Unexpected(format!("{m:?} to request tag {tag}"))),
        }
    }

    /// Sends a Mininet-WiFi request and waits for its reply's result.
    pub fn mininet(&mut self, req: &Request) -> Result<UpdateResult, ClientError> {
        let raw = encode_request(req);
        self.stream.write_all(&raw)?;
        if matches!(req, Request::Shutdown) {
            return Ok(UpdateResult::Success);
        }
        let deadline = Instant::now() + self.reply_timeout;
        let got = self.read_until(Some(deadline), |c, m| match m {
            Incoming::Truth(r) => {
                c.records.push_back(r);
                None
            }
            m => Some(m),
        })?;
        match got {
            None => Err(ClientError::Timeout),
            Some(Incoming::Mininet(reply)) if reply[0] == raw[0] + 1 => {
                let r = *reply.last().unwrap_or(&255);
                Ok(match r {
                    0 => UpdateResult::Success,
                    1 => UpdateResult::NotFound,
                    2 => UpdateResult::Duplicate,
                    3 => UpdateResult::WrongMode,
                    _ => return Err(ClientError::Unexpected(format!("result byte {r}"))),
                })
            }
            Some(m) => Err(ClientError::Unexpected(format!(
                "{m:?} to a Mininet-WiFi request of type {}",
                raw[0]
            ))),
        }
    }

    /// Subscribes to the truth records of frames from `transmitters` (every frame if
    /// empty).
    pub fn subscribe(&mut self, transmitters: &[Mac]) -> Result<(), ClientError> {
        let tag = self.tag();
        self.call(ExtRequest::Subscribe { tag, transmitters: transmitters.to_vec() }).map(|_| ())
    }

    /// Stops the truth records (those already sent are still read).
    pub fn unsubscribe(&mut self) -> Result<(), ClientError> {
        let tag = self.tag();
        self.call(ExtRequest::Unsubscribe { tag }).map(|_| ())
    }

    /// Sets station `station`'s EDCA parameters of `ac` (0 BK, 1 BE, 2 VI, 3 VO).
    pub fn set_edca(&mut self, station: Mac, ac: u8, params: Edca) -> Result<(), ClientError> {
        let tag = self.tag();
        self.call(ExtRequest::SetEdca { tag, station, ac, params }).map(|_| ())
    }

    /// Station `station`'s EDCA parameters of `ac`.
    pub fn get_edca(&mut self, station: Mac, ac: u8) -> Result<Edca, ClientError> {
        let tag = self.tag();
        match self.call(ExtRequest::GetEdca { tag, station, ac })?.body {
            ReplyBody::Edca { params, .. } => Ok(params),
            b => Err(ClientError::Unexpected(format!("{b:?} to get EDCA"))),
        }
    }

    /// Sets station `station`'s ACK timeout (ns; 0: the PHY's).
    pub fn set_ack_timeout(&mut self, station: Mac, ns: u32) -> Result<(), ClientError> {
        let tag = self.tag();
        self.call(ExtRequest::SetAckTimeout { tag, station, ns }).map(|_| ())
    }

    /// Station `station`'s ACK timeout in use (ns).
    pub fn get_ack_timeout(&mut self, station: Mac) -> Result<u32, ClientError> {
        let tag = self.tag();
        match self.call(ExtRequest::GetAckTimeout { tag, station })?.body {
            ReplyBody::AckTimeout(ns) => Ok(ns),
            b => Err(ClientError::Unexpected(format!("{b:?} to get ACK timeout"))),
        }
    }

    /// The link `from` → `to` as the daemon models it now.
    pub fn get_link(&mut self, from: Mac, to: Mac) -> Result<LinkState, ClientError> {
        let tag = self.tag();
        match self.call(ExtRequest::GetLink { tag, from, to })?.body {
            ReplyBody::Link { snr_db, error_prob } => Ok(LinkState { snr_db, error_prob }),
            b => Err(ClientError::Unexpected(format!("{b:?} to get link"))),
        }
    }

    /// Sets the SNR of the link `a` ↔ `b` (Mininet-WiFi's request).
    pub fn set_snr(&mut self, a: Mac, b: Mac, snr_db: i32) -> Result<(), ClientError> {
        match self.mininet(&Request::Snr { from: a, to: b, snr_db })? {
            UpdateResult::Success => Ok(()),
            r => Err(ClientError::Update(r)),
        }
    }

    /// Sets the error probability of the link `from` → `to` (Mininet-WiFi's request).
    pub fn set_error_prob(&mut self, from: Mac, to: Mac, prob: f64) -> Result<(), ClientError> {
        match self.mininet(&Request::ErrProb { from, to, prob })? {
            UpdateResult::Success => Ok(()),
            r => Err(ClientError::Update(r)),
        }
    }

    /// The next truth record, waiting at most `timeout` (None: as long as it takes);
    /// `Ok(None)` when none came in time.
    pub fn next_record(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<TruthRecord>, ClientError> {
        if let Some(r) = self.records.pop_front() {
            return Ok(Some(r));
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let got = self.read_until(deadline, |_, m| Some(m))?;
        match got {
            None => Ok(None),
            Some(Incoming::Truth(r)) => Ok(Some(r)),
            Some(m) => Err(ClientError::Unexpected(format!("{m:?} while reading records"))),
        }
    }
}
