"""A server that cannot start: it says why on stderr and exits."""

import sys

print("fatal: cannot open the database at /nowhere/db.sqlite", file=sys.stderr, flush=True)
sys.exit(3)
