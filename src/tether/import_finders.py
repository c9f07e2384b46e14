"""Finders of tether's own on `sys.meta_path`, put there and taken away without editing the
list in place: importlib walks `sys.meta_path` as it stands, finder by finder, and a thread in
the middle of that walk while another thread edits the list skips the finder after the edit's
place (an import then fails as if the module did not exist). A new list leaves every walk
under way on the old one as it was."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed.importlib import MetaPathFinderProtocol


def put_finder_first(finder: MetaPathFinderProtocol) -> None:
    """Put `finder` ahead of every other, in a new `sys.meta_path`."""
    sys.meta_path = [finder, *sys.meta_path]


def take_finder_away(finder: MetaPathFinderProtocol) -> None:
    """Leave `finder` out of a new `sys.meta_path` (when it is there at all)."""
    sys.meta_path = [other for other in sys.meta_path if other is not finder]
