"""Stand-in for the FlightRadar24 package, which mn_wifi.net imports at load time for its
aircraft feature (live flight data over the network). The test bed has no network and
the test's topologies have no aircraft; using it says so."""


class FlightRadar24API:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("FlightRadar24 is not available in the sdmac test bed")
