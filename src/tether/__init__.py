"""tether: a provider-agnostic coding-agent harness.

Kept import-free so that `tether --version` starts in milliseconds.
"""

__version__ = "0.1.0"
