"""What a terminal shows after the bytes a program wrote, for the few sequences our front end
(prompt_toolkit and rich) draws with: text, CR, LF, cursor moves (up, down, left, right,
home), erasing (line, to the end of the screen, the whole screen). prompt_toolkit redraws by
difference, writing only the cells that changed, so the text between escapes is not what the
screen shows; replaying it on a grid is. Other sequences (colours, modes) change no cell."""

from __future__ import annotations

import re

_SEQUENCE = re.compile(
    r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07]*\x07|\x1b[=>()][0-9A-Za-z]?|([\r\n\b])"
)


def screen_lines(raw: str) -> list[str]:
    """The lines drawn, top to bottom, the page a full clear started (scrolled-off lines kept:
    the grid grows downward and never scrolls)."""
    grid: list[list[str]] = [[]]
    row = col = 0

    def put(text: str) -> None:
        nonlocal col
        line = grid[row]
        if len(line) < col:
            line.extend(" " * (col - len(line)))
        line[col : col + len(text)] = list(text)
        col += len(text)

    position = 0
    for match in _SEQUENCE.finditer(raw):
        if match.start() > position:
            put(raw[position : match.start()])
        position = match.end()
        params, command, control = match.group(1), match.group(2), match.group(3)
        if control == "\r":
            col = 0
        elif control == "\n":
            row += 1
        elif control == "\b":
            col = max(0, col - 1)
        elif command is None or (params or "").startswith("?"):
            pass
        else:
            numbers = [int(n) if n else 0 for n in (params or "").split(";")]
            count = max(1, numbers[0])
            if command == "A":
                row = max(0, row - count)
            elif command == "B":
                row += count
            elif command == "C":
                col += count
            elif command == "D":
                col = max(0, col - count)
            elif command == "G":
                col = count - 1
            elif command == "K" and numbers[0] == 0:
                del grid[row][col:]
            elif command == "K" and numbers[0] == 1:
                grid[row][: col + 1] = [" "] * min(col + 1, len(grid[row]))
            elif command == "K":
                grid[row] = []
            elif command == "J" and numbers[0] in (2, 3):
                grid, row, col = [[]], 0, 0
            elif command == "J":
                del grid[row][col:]
                del grid[row + 1 :]
            elif command == "H":
                row, col = (numbers[0] or 1) - 1, ((numbers[1] if len(numbers) > 1 else 1) or 1) - 1
        while len(grid) <= row:
            grid.append([])
    if position < len(raw):
        put(raw[position:])
    return ["".join(line).rstrip() for line in grid]
