"""How make is run (`MakeRun`: its goals, the variables its command line and environment set,
its flags, where it looks for included makefiles), what reading a makefile for it gives
(`MakeReading`), and what make knows before it reads one: its default variables, the recipes
of its built-in rules and its default include directories."""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted

MAKE_DEFAULTS = {
    **{"CC": "cc", "CXX": "g++", "MAKE": "make", "RM": "rm -f", "AR": "ar", "SHELL": "sh"},
    **{"AS": "as", "FC": "f77", "PC": "pc", "LEX": "lex", "YACC": "yacc", "LD": "ld"},
    **{"CPP": "$(CC) -E", "M2C": "m2c", "CO": "co", "GET": "get", "TEX": "tex"},
    **{"MAKEINFO": "makeinfo", "CTANGLE": "ctangle", "CWEAVE": "cweave"},
}
BUILT_IN_RECIPES = (
    "$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $^ $(LDLIBS) -o $@",
    "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH) $^ $(LDLIBS) -o $@",
    "$(CPP) $(CPPFLAGS) $<",
    *("$(AS) $(ASFLAGS) -o $@ $<", "$(FC) $(FFLAGS) -c -o $@ $<", "$(PC) $(PFLAGS) -c $<"),
    *("$(AR) $(ARFLAGS) $@ $<", "$(LEX) $(LFLAGS) -t $<", "$(YACC) $(YFLAGS) $<"),
    *("$(LD) $(LDFLAGS) $<", "$(M2C) $(M2FLAGS) $<", "$(CO) $(COFLAGS) $<"),
    *("$(GET) $(GFLAGS) $<", "$(TEX) $<", "$(MAKEINFO) $<", "$(CTANGLE) $<", "$(CWEAVE) $<"),
)
"""What make's built-in rules run (`make -p`), for a goal no rule of the makefile makes."""
DEFAULT_INCLUDE_DIRS = ("/usr/local/include", "/usr/gnu/include", "/usr/include")
"""Where GNU make looks for an included makefile after its `-I` directories."""


class MakeReading(Slotted):
    """The shell text a make run runs (None: nothing), and why some of it is not read."""

    __slots__ = ("text", "unread")
    text: Final[str | None]
    unread: Final[tuple[str, ...]]

    def __init__(self, text: str | None, unread: tuple[str, ...]) -> None:
        self.text = text
        self.unread = unread


class MakeRun(Slotted):
    """How make is run: its goals, the variables its command line and environment set, and
    its flags (`n`: only `+` and `$(MAKE)` lines run, `r`: no built-in rules, `e`: the
    environment wins over the makefile)."""

    __slots__ = ("assigned", "environment", "flags", "goals", "include_dirs", "makefiles")
    goals: Final[tuple[str, ...]]
    assigned: Final[tuple[tuple[str, str], ...]]
    environment: Final[tuple[tuple[str, str], ...]]
    flags: Final[frozenset[str]]
    include_dirs: Final[tuple[str, ...]]
    """Where an included makefile not found from make's directory is looked for, in order."""
    makefiles: Final[tuple[str, ...]]
    """The makefiles make reads first: one a rule names is remade first."""

    def __init__(
        self,
        goals: tuple[str, ...],
        assigned: tuple[tuple[str, str], ...] = (),
        environment: tuple[tuple[str, str], ...] = (),
        flags: frozenset[str] = frozenset(),
        *,
        include_dirs: tuple[str, ...] = DEFAULT_INCLUDE_DIRS,
        makefiles: tuple[str, ...] = (),
    ) -> None:
        self.goals = goals
        self.assigned = assigned
        self.environment = environment
        self.flags = flags
        self.include_dirs = include_dirs
        self.makefiles = makefiles
