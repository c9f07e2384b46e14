"""The remedy table names only places whose faults are found: a remedy for a place no shape
check looks at would never apply, and its guard would go unguarded without a word."""

from __future__ import annotations

from tether.config.fault_remedies import REMEDIES
from tether.config.numbers import ANY
from tether.config.setting_shapes import SETTING_SHAPES
from tether.config.settings_keys import READ_KEYS


def _checked(place: tuple[str | int, ...]) -> bool:
    if len(place) == 1:
        return place[0] in READ_KEYS
    if place in SETTING_SHAPES:
        return True
    # A list item: its list is a checked place.
    return place[-1] == ANY and place[:-1] in SETTING_SHAPES


def test_every_remedied_place_is_one_a_shape_check_looks_at() -> None:
    assert [place for place in REMEDIES if not _checked(place)] == []
