"""A server that reads its stdin and never answers (stuck before its handshake)."""

import sys

for _line in sys.stdin:
    pass
