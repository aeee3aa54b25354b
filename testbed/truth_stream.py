"""The medium daemon's truth stream, read in the guest by the VM scripts that set a
backend's confirmations against what the medium really did (hwsim_backend_check.py,
hwsim_evidence.py).

The stream is sdmac's extension of the control socket (docs/mediumd.md): a frame is a
kind byte, a big-endian u16 length and the body. A client subscribes (kind 0x80: u32
request id, u8 count, then that many addresses), gets a reply (0x81, status byte 4 is
0 on success), then one record (0x8F) per frame a subscribed address sends.
"""

import socket
import struct
import threading

SUBSCRIBE, SUBSCRIBED, RECORD = 0x80, 0x81, 0x8F
OUTCOMES = ["A", "LD", "LA", "NOACK", "DROP"]
CAUSES = ["none", "collision", "low_sinr", "out_of_range", "half_duplex", "receiver_busy", "link_error_prob",
          "preamble_missed", "queue_full", "cancelled"]


def parse_record(b):
    """One record's body as a dict: the transmitter and receiver addresses, the raw
    sequence-control field and its sequence number, outcome and cause (indices into
    OUTCOMES and CAUSES), the rate entries tried ([kb/s, attempts] each), the first
    attempt's start and the last one's end (medium ns), and the count of records the
    daemon dropped before this one."""
    seq_ctl, = struct.unpack(">H", b[22:24])
    entries = []
    for k in range(b[36]):
        _idx, att, kbps = struct.unpack(">bBI", b[37 + 6 * k:43 + 6 * k])
        entries.append([kbps, att])
    t_first, t_end = struct.unpack(">QQ", b[69:85])
    return {"lost_before": struct.unpack(">I", b[0:4])[0], "ta": b[10:16].hex(":"), "ra": b[16:22].hex(":"),
            "seq_ctl": seq_ctl, "seq": seq_ctl >> 4, "outcome": b[34], "cause": b[35], "entries": entries,
            "t_first": t_first, "t_end": t_end}


class TruthStream:
    """Subscribes to the records of `address` ("aa:bb:...") on the daemon's control
    socket at `path` and collects them, in the order sent, in `records` (a reader
    thread; it stops when the daemon goes away)."""

    def __init__(self, path, address):
        self.records = []
        self.lost = 0
        self._s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._s.connect(path)
        body = struct.pack(">IB", 1, 1) + bytes(int(x, 16) for x in address.split(":"))
        self._s.sendall(struct.pack(">BH", SUBSCRIBE, len(body)) + body)
        kind, n = struct.unpack(">BH", self._read(3))
        reply = self._read(n)
        if kind != SUBSCRIBED or reply[4] != 0:
            raise RuntimeError(f"truth stream: subscription refused: kind {kind:#x}, reply {reply.hex()}")
        threading.Thread(target=self._reader, daemon=True).start()

    def _read(self, n):
        b = b""
        while len(b) < n:
            chunk = self._s.recv(n - len(b))
            if not chunk:
                raise EOFError
            b += chunk
        return b

    def _reader(self):
        try:
            while True:
                kind, n = struct.unpack(">BH", self._read(3))
                b = self._read(n)
                if kind == RECORD:
                    r = parse_record(b)
                    self.lost += r["lost_before"]
                    self.records.append(r)
        except (EOFError, OSError):
            pass
