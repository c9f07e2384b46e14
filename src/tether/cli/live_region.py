"""The live region at the bottom of a terminal, redrawn from the event loop's thread (its
spinner kept, so its frames move), and how a reply is drawn in it and above it (Markdown beside
a bullet; its tail when taller than the screen)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from rich.live import Live
    from rich.spinner import Spinner

REFRESH_INTERVAL_S = 0.1


class LiveRegion:
    """A region redrawn with what `view` returns, on each refresh and every
    `REFRESH_INTERVAL_S` while an event loop runs."""

    def __init__(self, console: Console, view: Callable[[], RenderableType]) -> None:
        self.console = console
        self._view = view
        self._live: Live | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._spinner: Spinner | None = None
        """The spinner, kept across refreshes: its frame follows the time since it was made,
        so a spinner made anew on each refresh would show its first frame only."""

    @property
    def shown(self) -> bool:
        return self._live is not None

    def start(self) -> None:
        if self._live is not None:
            return
        from rich.live import Live  # only terminals pay for it

        # Redrawn from this thread only: rich's refresh thread would race the prints above
        # the region and erase lines it miscounts.
        self._live = Live(
            console=self.console,
            get_renderable=self._view,
            auto_refresh=False,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            vertical_overflow="crop",
        )
        self._live.start(refresh=True)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop: the region is redrawn on each event only
        self._ticker = loop.create_task(self._tick())

    def refresh(self) -> None:
        if self._live is not None:
            self._live.refresh()

    def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._live is not None:
            self._live.stop()
            self._live = None

    def spinner_with(self, label: Text) -> Spinner:
        if self._spinner is None:
            from rich.spinner import Spinner

            self._spinner = Spinner("dots", text=label, style="cyan")
        else:
            self._spinner.update(text=label)
        return self._spinner

    async def _tick(self) -> None:
        """Keep the spinner and the clock moving while no event arrives."""
        while self._live is not None:
            self._live.refresh()
            await asyncio.sleep(REFRESH_INTERVAL_S)


def reply_block(text: str) -> Table:
    """A reply as Markdown beside a bullet."""
    from rich.markdown import Markdown  # markdown-it costs ~50 ms; not needed for the prompt

    grid = Table.grid(padding=0)
    grid.add_column(width=2, no_wrap=True)
    grid.add_column()
    grid.add_row(Text("●", style="bold"), Markdown(text))
    return grid


class Tail:
    """The last `max_lines` lines of a renderable, so a long reply scrolls inside the live
    region instead of being cut at the top."""

    def __init__(self, renderable: RenderableType, max_lines: int) -> None:
        self.renderable = renderable
        self.max_lines = max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines[-self.max_lines :]:
            yield from line
            yield Segment.line()
