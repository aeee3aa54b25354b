"""DATA_req with a raw 802.11 frame built by hand (frame control, duration, three
addresses, sequence control, LLC/SNAP, payload; no FCS): the MAC sends it as is,
the AP's DATA_ind returns the same bytes.

Expect: AP received the same 48 bytes
"""

from sdmac.emu import Session

AP = bytes.fromhex("020000000001")
STA = bytes.fromhex("020000000002")

header = (
    b"\x08\x00"  # frame control: data, no flags
    + b"\x00\x00"  # duration
    + AP + STA + AP  # addr1 = receiver, addr2 = transmitter, addr3 = BSSID
    + (42 << 4).to_bytes(2, "little")  # sequence control: sequence number 42
)
llc_snap = bytes.fromhex("aaaa03000000") + (0x88B5).to_bytes(2, "big")
frame = header + llc_snap + b"hand-made frame!"

with Session.paper(beacon_interval_tu=1000) as s:
    sta, ap = s.interface("sta"), s.interface("ap")
    sta.data_req(7, frame=frame, rates="54x2")
    c = sta.data_con(timeout=2.0)
    assert c is not None and c.status == "acked", c
    print(f"sent {len(frame)} B frame: status={c.status}, {c.length} B on air with the FCS")
    i = ap.data_ind(timeout=2.0)
    assert i is not None, "nothing received"
    print(f"AP: from {i.src}, frame {i.frame[:24].hex(' ')} ..., payload {i.payload!r}")
    assert i.frame == frame and i.payload == b"hand-made frame!"
    print(f"AP received the same {len(i.frame)} bytes")
