"""Seed/duration overrides edit the scenario text line for line."""

import sys

from hypothesis import given, strategies as st

from sdmac._overrides import apply_overrides, unshift_error

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BASE = 'name = "x"\nduration = 10.0   # seconds\nseed = 1\n\n[phy]\nseed = 99\nduration = 5\n'


def test_no_overrides_is_identity():
    assert apply_overrides(BASE, {"seed": None, "duration": None}) == (BASE, 0)


def test_existing_keys_rewritten_in_place():
    text, shift = apply_overrides(BASE, {"seed": 7, "duration": 2.5})
    assert shift == 0
    assert len(text.splitlines()) == len(BASE.splitlines())
    d = tomllib.loads(text)
    assert (d["seed"], d["duration"]) == (7, 2.5)
    # Keys of the same name inside tables are left alone.
    assert d["phy"] == {"seed": 99, "duration": 5}


def test_missing_key_prepended():
    base = 'duration = 1.0\n[[station]]\nname = "a"\n'
    text, shift = apply_overrides(base, {"seed": 3})
    assert shift == 1
    assert tomllib.loads(text)["seed"] == 3
    assert text.endswith(base)


def test_invalid_toml_untouched():
    bad = "duration = 1.0\n[phy\n"
    assert apply_overrides(bad, {"seed": 3}) == (bad, 0)


def test_unshift_error():
    assert unshift_error("f.toml:5: station[0]: x", "f.toml", 1) == "f.toml:4: station[0]: x"
    assert unshift_error("f.toml:1: x", "f.toml", 1) == "f.toml: x"
    assert unshift_error("g.toml:5: x", "f.toml", 1) == "g.toml:5: x"
    assert unshift_error("f.toml:5: x", "f.toml", 0) == "f.toml:5: x"


@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    duration=st.floats(min_value=1e-6, max_value=1e6, allow_nan=False),
    has_seed=st.booleans(),
    crlf=st.booleans(),
)
def test_roundtrip(seed, duration, has_seed, crlf):
    base = 'name = "x"\nduration = 1\n' + ("seed = 5 # c\n" if has_seed else "") + '[[station]]\nname = "a"\n'
    if crlf:
        base = base.replace("\n", "\r\n")
    text, shift = apply_overrides(base, {"seed": seed, "duration": duration})
    d = tomllib.loads(text)
    assert d["seed"] == seed and d["duration"] == duration
    assert d["station"] == [{"name": "a"}]
    assert shift == (0 if has_seed else 1)
