"""Inline Python code (`python3 -c CODE`, `exec`'d literals) read with Python's own parser: what
it runs, opens and evaluates, for bash_policy to judge as a command's.

Only what can be shown harmless passes: calls of builtins and modules known to compute or
print (`json`, `math`, `sys.stdout.write`...), methods of the values those return, and file
opens whose names are literals (`open('a.txt')`, `pathlib.Path('a').read_text()`), judged by
the Read and Edit rules. A program run with a literal command line (`os.system("curl x")`,
`subprocess.run(["rm", "y"])`) is judged as that Bash command. Everything else is "not seen":
a name built at run time (`'.e' + 'nv'`), a program whose command is not a literal, code
evaluated from a non-literal (`eval`, `exec`, `__import__`, `importlib`, `getattr`), a
function of a module not known harmless, a dangerous function passed around as a value
(`f = os.system`), Python's internals (`__globals__`, `__subclasses__`, `sys.modules`).
"""

from __future__ import annotations

import ast
import shlex
from dataclasses import dataclass, field

from tether.permissions.python_literals import argv_words, method_target, symlink_target
from tether.permissions.python_literals import is_internal as _internal
from tether.permissions.python_literals import may_write as _writes
from tether.permissions.python_literals import text_of as _literal
from tether.permissions.python_literals import writes_paths as _writes_paths
from tether.permissions.python_reach import reach
from tether.permissions.python_tables import (
    ARGV_RUNS,
    DERIVES,
    EVALUATES,
    FRAME_ATTRIBUTES,
    HARMLESS_BUILTINS,
    HARMLESS_MODULES,
    LINK_TARGETS,
    OS_HARMLESS,
    PATH_CLASSES,
    PATH_ONLY,
    PATH_TARGET_METHODS,
    READS,
    RISKY_PREFIXES,
    SAFE_DUNDERS,
    SHELL_RUNS,
    SHUTIL_READS,
    WRITES,
)

_SEARCHED = frozenset({"os.environ", "sys.path"})
"""Values that choose which programs and modules are found: changed only in plain sight."""
MAX_NODES = 5_000
"""Syntax nodes of inline code looked at (past them, not seen)."""
MAX_DEPTH = 4
"""Literal code given to `exec`/`eval` read again, this many levels deep."""


@dataclass
class PythonUse:
    reads: list[str] = field(default_factory=list[str])
    writes: list[str] = field(default_factory=list[str])
    commands: list[str] = field(default_factory=list[str])
    """Command lines it runs, each a literal (judged as Bash commands)."""
    unseen: list[str] = field(default_factory=list[str])
    """Why what it does is hidden from a reader (first few): names, commands or code built at
    run time, dangerous functions passed around, Python's internals."""
    unknown: list[str] = field(default_factory=list[str])
    """Functions of modules not known harmless that it calls (first few): they may run
    programs or open files, but hide nothing."""


def python_use(code: str) -> PythonUse:
    """What inline Python `code` reads, writes and runs, and what of it is not seen."""
    use = PythonUse()
    _Reader(use, 0).read(code)
    return use


class _Reader:
    def __init__(self, use: PythonUse, depth: int) -> None:
        self.use = use
        self.depth = depth
        self.aliases: dict[str, str] = {}
        self.direct: set[int] = set()
        """Nodes that are the function of a call or the object of an attribute read."""
        self.joined: set[int] = set()
        """Path calls judged with the `/` that extends them."""
        self.modules: set[str] = set()
        """Names bound to a module by `import`."""
        self.missing: set[str] = set()
        """Names of harmless modules' attributes this Python lacks: not known harmless."""
        self.reached: set[str] = set()
        """Modules reached through another's attributes (`posixpath.os` reaches `os`)."""
        self.writes_paths = False
        """A method that writes a path is called somewhere (on this path or another)."""

    def _joined(self, node: ast.BinOp) -> None:
        """`Path(LIT) / 'x' / 'y'`: the path is the joined literal; a `/` with a text operand
        on anything else joins a path built at run time."""
        parts: list[str | None] = []
        left: ast.AST = node
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Div):
            parts.insert(0, _literal(left.right))
            left = left.left
        if isinstance(left, ast.Call) and self.dotted(left.func) in PATH_CLASSES:
            if id(left) in self.joined:
                return
            self.joined.add(id(left))
            base = [_literal(a) for a in left.args]
            joined = [*base, *parts]
            if not base or any(p is None for p in joined):
                self._unseen("opens a path whose name is built at run time")
                return
            path = "/".join(p for p in joined if p is not None)
            self.use.reads.append(path)
            if self.writes_paths:
                self.use.writes.append(path)
        elif isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
            self._unseen("joins a path built at run time")

    def read(self, code: str) -> None:
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._unseen("does not parse as this Python's (another version's?)")
            return
        nodes = list(ast.walk(tree))
        if len(nodes) > MAX_NODES:
            self._unseen("is too large to read")
            return
        self.writes_paths = _writes_paths(tree)
        for node in nodes:
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                self._joined(node)
            if isinstance(node, ast.Call):
                self.direct.add(id(node.func))
            if isinstance(node, ast.Attribute):
                self.direct.add(id(node.value))
            self._bind(node)
        for node in nodes:
            self._visit(node)

    def _unseen(self, reason: str) -> None:
        if reason not in self.use.unseen and len(self.use.unseen) < 4:
            self.use.unseen.append(reason)

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                self.modules.add(a.asname or a.name.split(".")[0])
                self.aliases[a.asname or a.name.split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                self._unseen("imports relative to a package")
            for a in node.names:
                if a.name == "*":
                    self._unseen(f"imports every name of {node.module}")
                else:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def dotted(self, node: ast.AST) -> str | None:
        """The module-qualified name an expression stands for (`os.system`), or None; a
        module's attribute followed to what it is (`posixpath.os.system` is `os.system`)."""
        if isinstance(node, ast.Name):
            return self._reach(self.aliases.get(node.id, node.id))
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return self._reach(f"{base}.{node.attr}") if base is not None else None
        if isinstance(node, ast.Call):
            func = self.dotted(node.func)
            literal = _literal(node.args[0]) if node.args else None
            if func in ("__import__", "importlib.import_module") and literal is not None:
                return literal
            if func == "getattr" and len(node.args) >= 2:
                base, name = self.dotted(node.args[0]), _literal(node.args[1])
                return self._reach(f"{base}.{name}") if base and name is not None else None
        return None

    def _reach(self, name: str) -> str:
        found = reach(name)
        if found.problem is not None:
            self._unseen(found.problem)
        if found.name != name:
            self.reached.add(found.name.split(".")[0])
        if found.missing and found.name not in self.missing:
            self.missing.add(found.name)
            reason = f"reaches {found.name}, which this Python's module does not have"
            if len(self.use.unknown) < 4:
                self.use.unknown.append(reason)
        return found.name

    def _module_of(self, name: str) -> str | None:
        """The imported module a dotted name starts with (`os.path.join` -> `os.path`)."""
        parts = name.split(".")
        roots = {value.split(".")[0] for value in self.aliases.values()}
        if parts[0] not in roots and parts[0] not in ("os", "sys", *self.reached):
            return None
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in HARMLESS_MODULES:
                return module
        return parts[0]

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
            self._unseen(f"reaches Python's internals ({node.attr})")
        if isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            if node.attr not in SAFE_DUNDERS:
                self._unseen(f"reaches Python's internals ({node.attr})")
        elif (
            isinstance(node, ast.Name)
            and node.id.startswith("__")
            and node.id not in SAFE_DUNDERS
            and id(node) not in self.direct
        ):
            self._unseen(f"reaches Python's internals ({node.id})")
        if isinstance(node, ast.Attribute):
            name = self.dotted(node)
            if name is not None and self._module_of(name) is not None and _internal(name):
                self._unseen(f"reaches {name}, which changes what code is found or run")
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store | ast.Del)
            and self.dotted(node.value) in _SEARCHED
        ):
            self._unseen(f"changes {self.dotted(node.value)}, which changes what it runs")
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr | ast.AugAssign):
            bound = node.value
            if bound is not None and self.dotted(bound) in _SEARCHED:
                self._unseen(f"binds {self.dotted(bound)} to a name, where changes are not seen")
        if isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, ast.Name | ast.Attribute) and id(node) not in self.direct:
            self._value(node)

    def _value(self, node: ast.Name | ast.Attribute) -> None:
        """A name used as a value (not called, not read from): a function that runs, opens
        or evaluates, passed around, is used where it cannot be followed."""
        name = self.dotted(node)
        if name is None or isinstance(node.ctx, ast.Store | ast.Del):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                target = self.dotted(node)
                if target is not None and self._module_of(target) is not None:
                    self._unseen(f"changes {target}")
            return
        module = isinstance(node, ast.Name) and node.id in self.modules
        if (
            module
            or self._dangerous(name)
            or (name in self.aliases.values() and not self._harmless(name))
        ):
            self._unseen(f"passes {name} around as a value")

    def _dangerous(self, name: str) -> bool:
        return (
            name in EVALUATES
            or name in SHELL_RUNS
            or name in ARGV_RUNS
            or name in READS
            or name in WRITES
            or name in PATH_CLASSES
        )

    def _harmless(self, name: str) -> bool:
        if any(name == m or name.startswith(m + ".") for m in self.missing):
            return False
        if name.startswith(RISKY_PREFIXES) or name in ("sys.path", "os.environ"):
            return name in ("sys.path", "os.environ")  # read as values only
        module = self._module_of(name)
        if module is None:
            return True
        if module not in HARMLESS_MODULES:
            return False
        if module == "os":
            rest = name.split(".")[1] if "." in name else ""
            return rest == "" or rest in OS_HARMLESS
        return True

    def _call(self, node: ast.Call) -> None:
        name = self.dotted(node.func)
        if name is None or ("." in name and self._module_of(name) is None):
            self._method(node)
            return
        args = node.args
        if name in EVALUATES:
            self._evaluates(name, node)
        elif name in SHELL_RUNS:
            line = _literal(args[0]) if args else None
            self._run(name, line)
        elif name in ARGV_RUNS:
            self._argv_run(name, node)
        elif name in PATH_CLASSES:
            self._path(node)
        elif name in READS:
            self._paths(name, node, (READS[name],), write=name == "open" and _writes(node))
        elif name in WRITES:
            self._paths(name, node, WRITES[name], write=True)
            if name in LINK_TARGETS:
                target = symlink_target(node.args, LINK_TARGETS[name])
                self._written(target, "makes a link whose target is built at run time")
            if name in SHUTIL_READS:
                self._paths(name, node, (0,), write=False)
        elif name in ("os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.getsize"):
            return
        elif not self._harmless(name) or (
            self._module_of(name) is None
            and "." not in name
            and name.startswith("__")
            and name not in HARMLESS_BUILTINS
        ):
            reason = f"calls {name}, which tether does not know to be harmless"
            if reason not in self.use.unknown and len(self.use.unknown) < 4:
                self.use.unknown.append(reason)

    def _method(self, node: ast.Call) -> None:
        """A method of a value: a path's (judged by its literal name) or a value's that
        harmless calls returned."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        receiver = func.value
        if isinstance(receiver, ast.Call) and self.dotted(receiver.func) in PATH_CLASSES:
            if func.attr in PATH_TARGET_METHODS:
                target = method_target(receiver.args, func.attr, node.args)
                self._written(target, f"calls {func.attr}() with a path built at run time")
            return  # judged with the path (_path)
        if isinstance(receiver, ast.BinOp) and isinstance(receiver.op, ast.Div):
            return  # judged with the path
        if func.attr in DERIVES:
            self._unseen(f"derives a path at run time with {func.attr}()")
        elif func.attr in PATH_ONLY:
            self._unseen(f"calls {func.attr}() on a path built at run time")

    def _written(self, path: str | None, unseen: str) -> None:
        if path is None:
            self._unseen(unseen)
        else:
            self.use.writes.append(path)

    def _path(self, node: ast.Call) -> None:
        """`Path(LIT)`, read as a read of LIT (and a write when a writing method is called on
        it); a name built at run time is not seen."""
        parts = [_literal(a) for a in node.args]
        if not parts or any(p is None for p in parts):
            self._unseen("opens a path whose name is built at run time")
            return
        if id(node) in self.joined:
            return
        path = "/".join(p for p in parts if p is not None)
        self.use.reads.append(path)
        if self.writes_paths:
            self.use.writes.append(path)

    def _paths(self, name: str, node: ast.Call, positions: tuple[int, ...], *, write: bool) -> None:
        for position in positions:
            arg = node.args[position] if position < len(node.args) else None
            path = _literal(arg) if arg is not None else None
            if arg is None and name in ("os.listdir", "os.scandir", "os.walk"):
                path = "."
            if path is None:
                self._unseen(f"calls {name} on a path whose name is built at run time")
                continue
            (self.use.writes if write else self.use.reads).append(path)

    def _evaluates(self, name: str, node: ast.Call) -> None:
        literal = _literal(node.args[0]) if node.args else None
        if name in ("eval", "exec", "compile") and literal is not None:
            if self.depth >= MAX_DEPTH:
                self._unseen("nests code too deeply to read")
                return
            _Reader(self.use, self.depth + 1).read(literal)
            return
        if name == "__import__" and literal is not None:
            if id(node) not in self.direct:
                self._unseen(f"passes module {literal} around as a value")
            return
        if name == "getattr" and len(node.args) >= 2 and _literal(node.args[1]) is not None:
            return
        self._unseen(f"evaluates code or names with {name}() that are not literals")

    def _run(self, name: str, line: str | None) -> None:
        if line is None:
            self._unseen(f"runs a command that is not a literal with {name}")
        else:
            self.use.commands.append(line)

    def _argv_run(self, name: str, node: ast.Call) -> None:
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords or any(k in keywords for k in ("executable", "cwd", "env")):
            self._unseen(f"calls {name} with a program, directory or environment not seen")
            return
        shell = keywords.get("shell")
        as_shell = shell is not None and not (
            isinstance(shell, ast.Constant) and shell.value in (False, None, 0)
        )
        words = argv_words(name, node.args)
        if words is None or any(w is None for w in words) or not words:
            self._unseen(f"runs a command that is not a literal with {name}")
            return
        literal = [w for w in words if w is not None]
        if as_shell:
            self._run(name, literal[0] if len(literal) == 1 else None)
        else:
            self.use.commands.append(shlex.join(literal))
