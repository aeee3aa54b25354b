"""The Python Bianchi model reproduces the published values (FACTS §2) and agrees with the
simulator through the CLI's saturation table."""
import pytest

from sdmac.analysis import bianchi

PUBLISHED = [(1, 30.496, 0.0), (2, 31.497, 0.105), (5, 30.127, 0.272), (10, 28.302, 0.384),
             (15, 27.157, 0.442), (20, 26.316, 0.481), (30, 25.078, 0.533), (50, 23.400, 0.595)]

A54 = bianchi.Timing(slot_us=9, sifs_us=16, difs_us=34, data_us=248, ack_us=28, cw_min=15, cw_max=1023)


@pytest.mark.parametrize("n,s,p", PUBLISHED)
def test_fixed_point_matches_published_values(n, s, p):
    ms, mp = bianchi.throughput_mbps(n, A54, 1500)
    assert ms == pytest.approx(s, abs=0.002)
    assert mp == pytest.approx(p, abs=0.001)


def test_p_one_half_is_not_a_singularity():
    assert bianchi.tau_of_p(0.5, 16, 6) == pytest.approx(2 / (17 + 0.5 * 16 * 6))
