"""Work a headless run starts before its imports, on threads, so that it is done by the time
the session needs it: the HTTP stack (imported, and the TLS trust store read: C code that does
not hold the interpreter) and the sandbox probe (two short bwrap runs). Both would otherwise
start only once the session's build begins, after some 200 ms of imports, and the build would
then wait for them. The HTTP stack starts first, before even the settings and the protocol are
imported, so that the trust store is read while they are.

The cyclic garbage collector is paused meanwhile (`pause_collection`, until the session is
built: `resume_collection`): start-up makes modules, classes and functions that live as long as
the process, and collecting among them cost over a hundred passes, some 15 ms, before the first
request. What start-up made is then frozen (`gc.freeze`): left out of every later pass, instead
of all being looked at by the first one. Only for a process of its own (tether running on its
main thread): a program that runs tether's command line on a thread keeps its collector as is.

Pydantic's plugins are left out of tether's own process (`leave_out_pydantic_plugins`): the
first validator pydantic builds otherwise reads the entry points of every installed package,
looking for plugins (10 to 20 ms with a hundred packages, more in a fuller environment), and
tether's models are no program's to instrument. The variable that says so to pydantic
(PYDANTIC_DISABLE_PLUGINS) is not set: the commands tether runs would inherit it.

Only what the build would do anyway is started: the probe runs when no settings file and no
`--settings` could turn the sandbox off (the build decides for itself and takes the probe's
cached answer), and nothing here changes what the session is built from.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from tether.import_finders import put_finder_first, take_finder_away

if TYPE_CHECKING:
    from tether.config.settings import Settings

_paused: list[bool] = []


def start_early_work(cwd: Path, *, settings_given: bool) -> None:
    """Pause the garbage collector, start preloading the HTTP stack and, where the sandbox is
    on, probing it."""
    pause_collection()  # first: what follows imports the protocol and the layers above
    from tether.models.preload import preload_http_soon, tls_likely

    # Before the imports below: the trust store (when needed) loads meanwhile.
    preload_http_soon(tls=tls_likely(os.environ))
    leave_out_pydantic_plugins()
    if settings_given:
        return  # a --settings file or JSON may turn it off: the build probes once it knows
    from tether.config.project import project_root
    from tether.config.settings import load_settings, settings_files, tether_home
    from tether.protocol import ConfigError
    from tether.sandbox.probe import probe_soon

    env = os.environ
    try:
        start = cwd.expanduser().resolve()
        user_home = Path(env.get("HOME") or Path.home())
        workspace = project_root(start, user_home=user_home)
        settings = load_settings(settings_files(workspace, home=tether_home(env), start=start))
    except (ConfigError, OSError, RuntimeError):
        return  # the build reports it
    if _sandbox_may_be_on(settings):
        probe_soon()


def _sandbox_may_be_on(settings: Settings) -> bool:
    """No layer turns the sandbox off (what the build's trust then restricts only removes)."""
    from tether.protocol import ConfigError
    from tether.sandbox.settings import parse_sandbox_settings

    for path, data in settings.layers:
        try:
            if parse_sandbox_settings(data, source=str(path)).enabled is False:
                return False
        except ConfigError:
            return False
    return True


def pause_collection() -> None:
    """Pause the cyclic garbage collector for start-up, in a process of tether's own (on its
    main thread, with the collector running); `resume_collection` resumes it."""
    if threading.current_thread() is threading.main_thread() and gc.isenabled() and not _paused:
        gc.disable()
        _paused.append(True)


def leave_out_pydantic_plugins() -> None:
    """Tell pydantic that it has no plugins, in a process of tether's own (on its main
    thread), before it builds its first validator and looks for them: now if pydantic is
    loaded, else as its plugin loader is imported (pydantic is not imported on the way to a
    first request). A program that runs tether's command line on a thread keeps its plugins."""
    if threading.current_thread() is not threading.main_thread():
        return
    loader = sys.modules.get(_PLUGIN_LOADER)
    if loader is not None:
        _no_plugins(loader)
    elif not any(isinstance(finder, _NoPluginsFinder) for finder in sys.meta_path):
        put_finder_first(_NoPluginsFinder())


_PLUGIN_LOADER = "pydantic.plugin._loader"


def _no_plugins(loader: ModuleType) -> None:
    if getattr(loader, "_plugins", None) is None:  # not looked for yet
        setattr(loader, "_plugins", {})  # noqa: B010  (its cache of the plugins found)


class _NoPluginsFinder:
    """Finds pydantic's plugin loader as the path does, and leaves its plugins out once it
    is run; then steps aside (out of a new `sys.meta_path`: `tether.import_finders`)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _PLUGIN_LOADER:
            return None
        take_finder_away(self)
        spec = PathFinder.find_spec(fullname, path, target)
        loader = spec.loader if spec is not None else None
        if spec is None or loader is None:
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _no_plugins(module)

        loader.exec_module = exec_module  # this spec's loader, made for this import
        return spec


def resume_collection() -> None:
    """Freeze what start-up made and resume the collector `pause_collection` paused; nothing
    otherwise. Safe to call twice."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()
