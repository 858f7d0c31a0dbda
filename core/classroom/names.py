"""What students and teachers type: class codes, display names (and their look-alike keys), student IDs, e-mail
addresses and PINs — each checked, and refused with a message rather than silently changed."""
from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import unicodedata

from .errors import ClassError

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed from a projector
CODE_LENGTH = 6
MAX_NAME = 40
PIN_DIGITS = (4, 8)
ASKS = {"none": "nothing else", "student_id": "a student ID", "email": "an e-mail address"}
_CODE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
_STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_EMAIL = re.compile(r"^[^@\s]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


def normalise_code(text: str) -> str:
    """A class code as typed (any case, spaces, dashes) → its canonical form; ClassError when it cannot be one."""
    code = re.sub(r"[\s-]", "", str(text or "")).upper()
    if not _CODE.match(code):
        raise ClassError(f"a class code is {CODE_LENGTH} letters and digits, as the teacher shows it")
    return code


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_name(text: str) -> str:
    """A display name: NFKC-normalised, control characters dropped, spaces collapsed, 1–40 characters. A longer
    name is refused (not cut: a cut name could collide with another or lose what tells two students apart)."""
    name = unicodedata.normalize("NFKC", str(text or ""))
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    name = re.sub(r"\s+", " ", name)
    if not name:
        raise ClassError("choose a display name (it need not be your real name)")
    if len(name) > MAX_NAME:
        raise ClassError(f"a display name has at most {MAX_NAME} characters (this one has {len(name)}); "
                         "choose a shorter one")
    return name


@functools.lru_cache(maxsize=1)
def _homoglyphs() -> dict[str, str]:
    """Each confusable character → the one character that stands for its look-alike group (an ASCII one when the
    group has one), from the Unicode confusables table that ``confusable_homoglyphs`` ships. The table lists pairs
    (``I`` ~ ``l``, ``l`` ~ ``1``); the groups are their transitive closure."""
    # the confusables table (a few MB) loads on the first name check, not at the server's start
    from confusable_homoglyphs.utils import load

    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, entries in load("confusables.json").items():
        for e in entries:
            glyph = e["c"].strip("\u200e")
            if len(glyph) == 1 and len(char) == 1:
                parent[root(glyph)] = root(char)
    groups: dict[str, list[str]] = {}
    for c in list(parent):
        groups.setdefault(root(c), []).append(c)
    out = {}
    for members in groups.values():
        ascii_ = sorted(c for c in members if c.isascii() and c.isalnum()) or sorted(members)
        for c in members:
            out[c] = ascii_[0]
    return out


def name_keys(name: str) -> tuple[str, str]:
    """What two names in one class must not share: (1) the name without case or spaces, every look-alike character
    (Cyrillic "А", Greek "Ο", full-width forms, "l"/"1") replaced by one representative — "Alice", "alice",
    "A lice", "ALICE" and Cyrillic "Аlice" share it; (2) the same with look-alikes replaced *before* case is
    dropped, which catches a capital "I" written for an "l" ("AIice")."""
    table = _homoglyphs()
    bare = "".join(ch for ch in unicodedata.normalize("NFKC", name) if not ch.isspace())
    folded = "".join(table.get(ch, ch) for ch in bare.casefold())
    glyphs = "".join(table.get(ch, ch) for ch in "".join(table.get(ch, ch) for ch in bare).casefold())
    return folded, glyphs


def name_key(name: str) -> str:
    return name_keys(name)[0]


def clean_ident(ask: str, text: str) -> str | None:
    """The student ID or e-mail the class asks for (None when it asks for nothing); ClassError when malformed."""
    if ask == "none":
        return None
    value = unicodedata.normalize("NFKC", str(text or "")).strip()
    if ask == "student_id":
        if not _STUDENT_ID.match(value):
            raise ClassError("your student ID: letters, digits, '.', '_' or '-', at most 64 characters, as your "
                             "course site shows it")
        return value
    if len(value) > 254 or not _EMAIL.match(value):
        raise ClassError("your e-mail address as your course site knows it (name@university.edu)")
    return value.lower()


def check_pin(text: str) -> str:
    pin = str(text or "").strip()
    if not (pin.isascii() and pin.isdigit() and PIN_DIGITS[0] <= len(pin) <= PIN_DIGITS[1]):
        raise ClassError(f"a PIN is {PIN_DIGITS[0]}–{PIN_DIGITS[1]} digits (you choose it; it brings your seat "
                         "back in another browser)")
    return pin


def digest(salt: str, secret: str) -> str:
    return hashlib.sha256(f"{salt}:{secret}".encode()).hexdigest()


def same(salt: str, secret: str, stored: str) -> bool:
    """Constant-time comparison of a secret with its stored salted digest."""
    return hmac.compare_digest(digest(salt, secret), stored)
