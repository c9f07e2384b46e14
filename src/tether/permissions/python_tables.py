"""The tables python_code.py reads inline Python with: modules and builtins known harmless,
functions that run programs, open files or evaluate code, and path methods."""

from __future__ import annotations

HARMLESS_MODULES = frozenset(
    {
        "json", "math", "cmath", "re", "datetime", "time", "collections", "itertools",
        "functools", "string", "textwrap", "base64", "binascii", "hashlib", "hmac", "random",
        "decimal", "fractions", "statistics", "struct", "uuid", "pprint", "enum",
        "dataclasses", "typing", "operator", "copy", "calendar", "zlib", "html",
        "unicodedata", "keyword", "heapq", "bisect", "array", "numbers", "secrets", "difflib",
        "colorsys", "sys", "os", "os.path", "posixpath", "platform", "shlex", "fnmatch",
        "urllib.parse", "ipaddress", "locale", "abc", "contextlib", "types", "warnings",
        "traceback", "errno", "stat", "signal", "queue", "weakref", "gc", "codecs", "io",
        "pathlib", "sysconfig", "importlib.metadata", "zoneinfo", "tomllib", "string.templatelib",
    }
)  # fmt: skip
"""Modules whose functions compute, print or describe: harmless, but for `_RISKY` and the
functions judged apart (`_RUNS`, `_OPENS`)."""
RISKY_PREFIXES = (
    "sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache",
    "sys.path.", "sys.settrace", "sys.setprofile", "sys._getframe", "sys.addaudithook",
    "platform.popen", "platform.architecture", "codecs.open", "io.open", "io.FileIO",
    "os.chdir", "os.fchdir", "os.putenv", "os.environ.update", "os.environ.setdefault",
    "os.environ.pop", "os.environ.clear", "os.environ.__setitem__", "os.fork", "os.kill", "signal.",
    "importlib.", "contextlib.chdir", "types.FunctionType", "types.CodeType",
    "gc.get_referrers", "gc.get_objects",
)  # fmt: skip
"""Names inside harmless modules that load code, change what later code finds, or open files
by a name not judged here."""
OS_HARMLESS = frozenset(
    {
        "getcwd", "getenv", "environ", "listdir", "scandir", "walk", "stat", "lstat",
        "cpu_count", "getpid", "getppid", "getuid", "getgid", "geteuid", "sep", "linesep",
        "name", "path", "uname", "get_terminal_size", "fspath", "fsencode", "fsdecode",
        "strerror", "devnull", "curdir", "pardir", "pathsep", "extsep", "altsep", "getlogin",
        "isatty", "urandom", "times", "umask", "sched_getaffinity", "access",
    }
)  # fmt: skip
"""What of `os` only describes (the rest runs programs, opens files, or is not known)."""
HARMLESS_BUILTINS = frozenset(
    {
        "print", "len", "str", "int", "float", "bool", "bytes", "bytearray", "list", "dict",
        "set", "frozenset", "tuple", "range", "sorted", "reversed", "enumerate", "zip", "map",
        "filter", "sum", "min", "max", "abs", "round", "divmod", "pow", "repr", "ascii",
        "format", "hex", "oct", "bin", "ord", "chr", "isinstance", "issubclass", "type",
        "hash", "id", "iter", "next", "any", "all", "callable", "slice", "object", "super",
        "property", "staticmethod", "classmethod", "input", "exit", "quit", "dir",
        "memoryview", "complex", "hasattr", "aiter", "anext", "NotImplemented", "Ellipsis",
        "True", "False", "None",
    }
)  # fmt: skip
EVALUATES = frozenset(
    {"eval", "exec", "compile", "__import__", "getattr", "setattr", "delattr", "globals",
     "locals", "vars", "breakpoint", "help", "__builtins__", "builtins", "__loader__",
     "__spec__",
     "typing.get_type_hints", "typing.ForwardRef", "typing.evaluate_forward_ref",
     "functools.singledispatch", "functools.singledispatchmethod", "operator.attrgetter",
     "operator.methodcaller", "gc.get_referents", "string.Formatter"}
)  # fmt: skip
"""Builtins, and functions of harmless modules, that evaluate code or reach names by a value
(`getattr(os, x)`, a string annotation `typing.get_type_hints` or a `singledispatch`
`register` evaluates, `operator.attrgetter("_os.system")`, a module's dictionary among
`gc.get_referents`); judged: a literal argument of a builtin is read as what it names."""
FRAME_ATTRIBUTES = frozenset(
    {"f_globals", "f_builtins", "f_locals", "f_back", "f_code", "tb_frame", "tb_next",
     "gi_frame", "cr_frame", "ag_frame", "gi_code", "cr_code", "ag_code", "co_code",
     "cell_contents"}
)  # fmt: skip
"""Attributes of frames, tracebacks, generators and closures: another scope's names (a
module's dictionary, the builtins), whatever value they are read from."""
SHELL_RUNS = frozenset(
    {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput",
     "commands.getoutput", "commands.getstatusoutput", "asyncio.create_subprocess_shell",
     "pty.spawn"}
)  # fmt: skip
"""Functions that run their first argument as a shell command line."""
ARGV_RUNS = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
     "subprocess.Popen", "asyncio.create_subprocess_exec", "os.execv", "os.execve",
     "os.execvp", "os.execvpe", "os.execl", "os.execle", "os.execlp", "os.execlpe",
     "os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe", "os.spawnl", "os.spawnle",
     "os.spawnlp", "os.spawnlpe", "os.posix_spawn", "os.posix_spawnp"}
)  # fmt: skip
"""Functions that run a program from an argument vector (subprocess's as a shell command
line with `shell=True`)."""
READS = {"open": 0, "os.listdir": 0, "os.scandir": 0, "os.walk": 0, "os.stat": 0}
WRITES = {
    "os.remove": (0,), "os.unlink": (0,), "os.rmdir": (0,), "os.mkdir": (0,),
    "os.makedirs": (0,), "os.rename": (0, 1), "os.replace": (0, 1), "os.truncate": (0,),
    "os.chmod": (0,), "os.symlink": (1,), "os.link": (0, 1), "os.utime": (0,),
    "shutil.rmtree": (0,), "shutil.copy": (1,), "shutil.copy2": (1,), "shutil.copyfile": (1,),
    "shutil.copytree": (1,), "shutil.move": (0, 1), "shutil.chown": (0,),
}  # fmt: skip
"""Functions that write the paths at these argument positions (`shutil`'s sources are read;
a hard link's source is written through its new name, `os.link(".git/config", "x")`)."""
LINK_TARGETS = {"os.symlink": (0, 1)}
"""Functions making a symbolic link (target, name): writing through the name writes the
target, taken from the name's directory as the kernel does (`os.symlink("../.git", "s/x")`)."""
PATH_TARGET_METHODS = {
    "symlink_to": True, "hardlink_to": False, "rename": False, "replace": False,
    "link_to": False,
}  # fmt: skip
"""Path methods whose first argument is a path they make or write: a link's target (from the
path's own directory when `True`, as for `symlink_to`), a rename's destination."""
SHUTIL_READS = {
    "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.move", "os.link"
}  # fmt: skip
"""Functions whose first argument is read: copied, moved, or hard-linked (a new name for the
same file, which reads it as the original would be read)."""
PATH_CLASSES = frozenset(
    {"pathlib.Path", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.PurePosixPath"}
)
PATH_READ_METHODS = frozenset(
    {"read_text", "read_bytes", "iterdir", "glob", "rglob", "walk", "readlink", "stat",
     "exists", "is_file", "is_dir", "resolve", "samefile", "open"}
)  # fmt: skip
PATH_WRITE_METHODS = frozenset(
    {"write_text", "write_bytes", "unlink", "touch", "mkdir", "rmdir", "chmod", "lchmod",
     "rename", "replace", "symlink_to", "hardlink_to", "link_to"}
)  # fmt: skip
PATH_ONLY = frozenset(
    {"read_text", "read_bytes", "write_text", "write_bytes", "unlink", "touch", "rmdir",
     "iterdir", "rglob", "symlink_to", "hardlink_to", "lchmod", "readlink", "link_to"}
)  # fmt: skip
"""Methods only paths have: on a value not known, a path built at run time is opened."""
DERIVES = frozenset({"joinpath", "with_name", "with_suffix", "with_stem", "expanduser"})
"""Path methods that make another path from one."""
SAFE_DUNDERS = frozenset({"__version__", "__name__", "__file__", "__doc__", "__all__"})
