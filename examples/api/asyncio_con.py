"""asyncio: await confirmations, indications and beacons without blocking the event
loop (data_con_async, data_ind_async, beacon_ind_async wait on the interface's
eventfd); a timeout returns None. A ticker task keeps running meanwhile.

Expect: asyncio: confirmation acked, indication b'async hello', beacon #
"""

import asyncio

from sdmac.emu import Session, beacon_ind_async, data_con_async, data_ind_async


async def main() -> None:
    with Session.paper(beacon_interval_tu=10) as s:
        sta, ap = s.interface("sta"), s.interface("ap")
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.005)
                ticks += 1

        t = asyncio.create_task(ticker())
        nothing = await data_con_async(sta, timeout=0.05)
        assert nothing is None
        print(f"no request yet: data_con_async timed out with {nothing} ({ticks} ticks meanwhile)")
        sta.data_req(1, b"async hello", rates="54x3")
        c, i = await asyncio.gather(data_con_async(sta, timeout=2.0), data_ind_async(ap, timeout=2.0))
        b = await beacon_ind_async(sta, timeout=2.0)
        assert c is not None and c.status == "acked", c
        assert i is not None and i.payload == b"async hello", i
        assert b is not None
        t.cancel()
        print(f"asyncio: confirmation {c.status}, indication {i.payload!r}, beacon #{b.seq} from {b.bssid}")


asyncio.run(main())
