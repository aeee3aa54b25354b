"""DATA_ind: the AP receives what the station sends, with the 802.11 frame, the
payload, the sender, the rate, the signal, and the times on air (the same clock as
the sender's confirmation: the frame ends on air before the sender learns the outcome).

Expect: received 3 frames from 02:00:00:00:00:02
"""

from sdmac.emu import Session

with Session.paper(beacon_interval_tu=1000) as s:
    sta, ap = s.interface("sta"), s.interface("ap")
    for k, rate in enumerate(["54", "24", "6"], start=1):
        sta.data_req(k, f"message {k}".encode(), rates=f"{rate}x3")
        c = sta.data_con(timeout=2.0)
        assert c is not None and c.status == "acked", c
        i = ap.data_ind(timeout=2.0)
        assert i is not None, "nothing received"
        assert i.payload == f"message {k}".encode() and i.rate == rate and i.kind == "data"
        t5 = c.timestamps["t5"]
        assert t5 is not None and i.t_end <= t5
        print(f"#{i.id} {i.kind} from {i.src} to {i.dst} at {i.rate} Mb/s: {i.payload!r}, "
              f"{(i.t_end - i.t_start) / 1000:.0f} µs on air, {i.signal_dbm:.1f} dBm, SNR {i.snr_db:.1f} dB, "
              f"header {i.frame[:2].hex()}")
    assert ap.data_ind(timeout=0) is None
    print(f"received 3 frames from {sta.address}")
