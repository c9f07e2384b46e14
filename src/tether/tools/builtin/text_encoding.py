"""The encoding and line endings of a text file, so that Read shows a UTF-16 or Latin-1 file as
text (Claude Code reads UTF-16 files) and Edit and Write put back what they change in the
encoding and line endings the file had.

UTF-8 (with or without a byte-order mark) is the default and stays lossless for any bytes:
what does not decode survives as surrogates (`decode_text`). UTF-16 and UTF-32 are known by
their byte-order mark, or, without one, by the NUL bytes every other ASCII character carries.
A file that is not UTF-8 and holds no UTF-8 sequence at all is Latin-1, which maps each byte to
one character and back."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Final

from tether.protocol import ToolError
from tether.tools.builtin.files import decode_text, encode_text
from tether.tools.file_state import DIGEST_LIMIT_BYTES, digest_of


@dataclass(frozen=True)
class TextEncoding:
    codec: str
    """Python's name of the codec; "utf-8" decodes losslessly (surrogates keep stray bytes)."""
    bom: bytes = b""
    label: str = "UTF-8"
    """How the user and the model are told of it."""

    def decode(self, data: bytes) -> str:
        body = data[len(self.bom) :] if data.startswith(self.bom) else data
        if self.codec == "utf-8":
            return decode_text(data)  # a UTF-8 mark is kept as U+FEFF, as Read shows it
        return body.decode(self.codec, errors="replace")

    def decode_exactly(self, data: bytes, shown: str) -> str:
        """The text, refused when it would not encode back to `data` (nothing is lost)."""
        text = self.decode(data)
        if self.codec != "utf-8" and self.encode(text) != data:
            raise ToolError(
                f"{shown} is not valid {self.label} throughout, so a change could not keep "
                "its other bytes; change it with Bash (for example iconv, then sed)."
            )
        return text

    def encode(self, text: str) -> bytes:
        if self.codec == "utf-8":
            return encode_text(text)
        try:
            return self.bom + text.encode(self.codec)
        except UnicodeEncodeError as e:
            bad = e.object[e.start : e.end]
            raise ToolError(
                f"The file is {self.label} and the text has characters {self.label} cannot "
                f"hold ({bad!r}); keep to characters it can hold, or convert the file first."
            ) from None


UTF8: Final = TextEncoding("utf-8")
_MARKED: Final = (
    # UTF-32's marks begin with UTF-16's, so they are looked for first.
    (codecs.BOM_UTF32_LE, TextEncoding("utf-32-le", codecs.BOM_UTF32_LE, "UTF-32 (little-endian)")),
    (codecs.BOM_UTF32_BE, TextEncoding("utf-32-be", codecs.BOM_UTF32_BE, "UTF-32 (big-endian)")),
    (codecs.BOM_UTF16_LE, TextEncoding("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16 (little-endian)")),
    (codecs.BOM_UTF16_BE, TextEncoding("utf-16-be", codecs.BOM_UTF16_BE, "UTF-16 (big-endian)")),
)
_UTF16_LE: Final = TextEncoding("utf-16-le", label="UTF-16 (little-endian, no byte-order mark)")
_UTF16_BE: Final = TextEncoding("utf-16-be", label="UTF-16 (big-endian, no byte-order mark)")
_WHOLE_HEAD: Final = 4096
"""A head shorter than this is taken to be the whole file."""
LATIN1: Final = TextEncoding("latin-1", label="Latin-1 (ISO-8859-1)")


def encoding_of(head: bytes) -> TextEncoding:
    """The encoding of a file that begins with `head` (its first few KiB)."""
    for mark, encoding in _MARKED:
        if head.startswith(mark):
            return encoding
    if b"\x00" in head:
        return _unmarked_utf16(head) or UTF8
    if _is_latin1(head):
        return LATIN1
    return UTF8


def _unmarked_utf16(head: bytes) -> TextEncoding | None:
    """UTF-16 without a mark: text that is mostly ASCII has a NUL in every other byte, on one
    side only; a binary file has NULs on both."""
    if len(head) % 2 and len(head) < _WHOLE_HEAD:
        return None  # the whole file, of an odd length: not UTF-16
    even = head[: len(head) - len(head) % 2]
    if len(even) < 4:
        return None
    low, high = even[0::2], even[1::2]
    for zeros, other, encoding in ((high, low, _UTF16_LE), (low, high, _UTF16_BE)):
        if b"\x00" in other or zeros.count(0) * 10 < len(zeros) * 7:
            continue
        try:
            # A character cut at the end of `head` is held back, not an error.
            text = codecs.getincrementaldecoder(encoding.codec)().decode(even, final=False)
        except UnicodeDecodeError:
            continue
        if all(c.isprintable() or c in "\t\n\r\f" for c in text):
            return encoding
    return None


def _is_latin1(head: bytes) -> bool:
    """Not UTF-8, and no UTF-8 sequence in it either: a single-byte encoding, read as Latin-1.
    A UTF-8 file with a stray byte stays UTF-8 (the stray byte is shown as U+FFFD)."""
    if head.isascii():
        return False
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        decoder.decode(head, final=False)  # a character cut at the end of `head` is fine
        return False
    except UnicodeDecodeError:
        pass
    multibyte = any(ord(c) > 0x7F for c in head.decode("utf-8", errors="ignore"))
    return not multibyte


def line_ending_of(text: str) -> str:
    """The line ending most of the text's lines have ("\\r\\n" or "\\n")."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 > text.count("\n") else "\n"


def with_line_ending(text: str, ending: str) -> str:
    """`text` with each of its lines ending in `ending`."""
    if ending == "\n":
        return text
    return text.replace("\r\n", "\n").replace("\n", ending)


def written_digest(data: bytes | None) -> dict[str, str]:
    """The `sha256` a Write's or Edit's result gives of the bytes it left on disk (as Read's
    does of what it read): a resumed session checks the file against it."""
    if data is None or len(data) > DIGEST_LIMIT_BYTES:
        return {}
    return {"sha256": digest_of(data).hex()}
