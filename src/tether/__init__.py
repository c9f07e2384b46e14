"""tether: a provider-agnostic coding-agent harness.

Kept nearly import-free (two built-in modules) so that `tether --version` starts in
milliseconds.
"""

import sys

__version__ = "0.1.0"

if sys.platform != "win32":
    import resource

    if resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY:
        # Under a file size limit (`ulimit -f`) the import system writes a module's bytecode
        # cut short (it does not check the write's count), and every later import of that
        # module fails with "marshal data too short": no bytecode is cached then.
        sys.dont_write_bytecode = True
