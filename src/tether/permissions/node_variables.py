"""node's documented environment variables (node's `doc/api/cli.md`, "Environment
variables"), each classed by what it does: names code node loads, a file it reads or writes,
a channel it takes orders on, or changes none of these. Those that do any are dangerous
(dangerous_variables): set blind, as `NODE_OPTIONS` with the same option is
(`NODE_REDIRECT_WARNINGS=F` is `--redirect-warnings=F`). `NODE_OPTIONS` itself is read word by
word (node_options); variables not listed here are not node's."""

from __future__ import annotations

from collections.abc import Mapping

NODE_VARIABLES: Mapping[str, str] = {
    # Code node loads, or decides which module a name loads.
    "NODE_PATH": "code",  # directories searched for modules
    "NODE_REPL_EXTERNAL_MODULE": "code",  # a module loaded in place of the REPL
    "NODE_PRESERVE_SYMLINKS": "code",  # which copy of a linked module loads
    "NODE_CHANNEL_FD": "code",  # an IPC channel node takes messages and handles from
    "NODE_CHANNEL_SERIALIZATION_MODE": "code",
    "NODE_UNIQUE_ID": "code",  # a cluster worker: takes its orders from the channel
    "NODE_COMPILE_CACHE": "writes",  # a directory of compiled code, written and loaded back
    # Files read.
    "NODE_EXTRA_CA_CERTS": "reads",
    "NODE_ICU_DATA": "reads",
    "SSL_CERT_FILE": "reads",  # with --use-openssl-ca
    "SSL_CERT_DIR": "reads",
    # Files written.
    "NODE_REDIRECT_WARNINGS": "writes",
    "NODE_V8_COVERAGE": "writes",
    "NODE_REPL_HISTORY": "writes",
    "NODE_TEST_CONTEXT": "writes",  # a test child's protocol on stdout, parsed by its parent
    # Changes what node trusts over the network.
    "NODE_TLS_REJECT_UNAUTHORIZED": "trust",
    # Changes nothing node runs, loads, reads or writes.
    "NODE_ENV": "inert",
    "NODE_DEBUG": "inert",  # debug text on stderr
    "NODE_DEBUG_NATIVE": "inert",
    "NODE_DISABLE_COLORS": "inert",
    "NODE_DISABLE_COMPILE_CACHE": "inert",
    "NODE_COMPILE_CACHE_PORTABLE": "inert",
    "NODE_NO_WARNINGS": "inert",
    "NODE_PENDING_DEPRECATION": "inert",
    "NODE_PENDING_PIPE_INSTANCES": "inert",
    "NODE_SKIP_PLATFORM_CHECK": "inert",
    "NODE_USE_ENV_PROXY": "inert",
    "NODE_USE_SYSTEM_CA": "inert",
    "FORCE_COLOR": "inert",
    "NO_COLOR": "inert",
    "TZ": "inert",
}
"""Each of node's variables and what it does: `code`, `reads`, `writes`, `trust` or `inert`."""

DANGEROUS_NODE_VARIABLES = tuple(
    sorted(name for name, does in NODE_VARIABLES.items() if does != "inert")
)
"""node's variables that name code or files, or change what it trusts: set blind."""
