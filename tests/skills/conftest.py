from __future__ import annotations

from pathlib import Path


def write_skill(root: Path, directory: str, text: str) -> Path:
    """Write `<root>/<directory>/SKILL.md` and return its path."""
    path = root / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill_text(name: str, description: str = "Does things. Use when asked.", body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body or 'Do the thing.'}\n"
