"""httpx2's and httpcore2's versions read without `importlib.metadata`
(`tether.models.http_version`): the same modules and values, read from the same place."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

SHOWN = """\
import json, sys
{before}
import httpx2, httpcore2
print(json.dumps({{
    "httpx2": [httpx2.__version__, httpx2.__title__, httpx2.__description__],
    "httpcore2": httpcore2.__version__,
    "user_agent": httpx2._client.USER_AGENT,
    "metadata_loaded": "importlib.metadata" in sys.modules,
    "finders": [type(f).__name__ for f in sys.meta_path],
}}))
"""


def _shown(before: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SHOWN.format(before=before)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_versions_are_read_without_importlib_metadata_and_are_the_same() -> None:
    quick = _shown(
        "from tether.models.http_version import read_http_version_quickly\n"
        "read_http_version_quickly()"
    )
    plain = _shown("")
    assert quick.pop("metadata_loaded") is False
    assert plain.pop("metadata_loaded") is True
    assert "_QuickVersionFinder" not in quick.pop("finders")  # stepped aside, both found
    plain.pop("finders")
    assert quick == plain


# Run with sys.path set to the given entries (after its imports): installed_version's answer beside
# importlib.metadata's, for the distribution "demo_pkg".
COMPARED = """\
import json, sys
from importlib.metadata import version
from tether.models.http_version import installed_version
sys.path[:] = json.loads(sys.argv[1])
print(json.dumps([installed_version("demo-pkg"), version("demo-pkg")]))
"""


def _dist_info(place: Path, version: str, *, header: str = "Version") -> None:
    info = place / f"demo_pkg-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: demo-pkg\n{header}: {version}\n\nVersion: not this\n"
    )


def _egg_info(place: Path, version: str) -> None:
    info = place / "demo_pkg.egg-info"
    info.mkdir(parents=True)
    (info / "PKG-INFO").write_text(f"Metadata-Version: 1.0\nName: demo-pkg\nVersion: {version}\n")


def _zip(place: Path, version: str) -> Path:
    archive = place / "demo.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(
            f"demo_pkg-{version}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: demo-pkg\nVersion: {version}\n",
        )
    return archive


@pytest.mark.parametrize(
    "layout",
    ["dist-info", "first one on the path", "egg-info first", "zip first", "no version field"],
)
def test_installed_version_answers_as_importlib_metadata_does(tmp_path: Path, layout: str) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    entries = [str(tmp_path / "missing"), str(first), str(second)]
    if layout == "dist-info":
        _dist_info(second, "1.2.3")
    elif layout == "first one on the path":
        _dist_info(first, "2.0")
        _dist_info(second, "1.0")
    elif layout == "egg-info first":
        _egg_info(first, "3.1")
        _dist_info(second, "1.0")
    elif layout == "zip first":
        entries.insert(1, str(_zip(tmp_path, "4.2")))
        _dist_info(second, "1.0")
    else:
        _dist_info(first, "5.0", header="Versions")
        _dist_info(second, "1.0")
    done = subprocess.run(
        [sys.executable, "-c", COMPARED, json.dumps(entries)],
        capture_output=True,
        text=True,
        check=True,
    )
    ours, theirs = json.loads(done.stdout)
    assert ours == theirs


# A thread in the middle of importlib's walk over sys.meta_path (at the finder before the
# path's) while this thread's imports find the last awaited module: the walk goes on to the
# path's finder. Stepping aside removed the finder from the list being walked, so the walk
# ended one short and the other thread's import failed ("No module named 'httpcore2._api'").
WALKED = """\
import json, sys
from tether.models.http_version import read_http_version_quickly
read_http_version_quickly()
walk = iter(sys.meta_path)
while next(walk) is not sys.meta_path[-2]:
    pass
import httpx2, httpcore2
print(json.dumps({
    "rest": [getattr(f, "__name__", type(f).__name__) for f in walk],
    "finders": [type(f).__name__ for f in sys.meta_path],
}))
"""


def test_a_walk_over_the_finders_on_another_thread_reaches_the_path_finder() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WALKED], capture_output=True, text=True, check=True
    )
    shown = json.loads(done.stdout)
    assert shown["rest"] == ["PathFinder"]
    assert "_QuickVersionFinder" not in shown["finders"]
