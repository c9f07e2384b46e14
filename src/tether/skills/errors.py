"""The one error of this package: told to the model, so it is a ToolError."""

from tether.protocol import ToolError


class SkillError(ToolError):
    """A skill cannot be loaded: unknown or unusable name, unreadable or broken SKILL.md."""
