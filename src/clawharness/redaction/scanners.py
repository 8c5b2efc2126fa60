"""Secret matchers that are scanners rather than patterns.

PEM private-key blocks and bare AWS secret access keys (40 base64-ish characters that
are not part of a public URL) need context a single pattern cannot hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from clawharness._text import BLANK

__all__ = [
    "RedactMatch",
    "could_match_aws_secret_access_key",
    "match_aws_secret_access_keys",
    "match_pem_blocks",
]


@dataclass(frozen=True, slots=True)
class RedactMatch:
    """One secret-bearing span: the matched text, its capture groups and offset."""

    match: str
    groups: tuple[str, ...]
    offset: int


# -- PEM ------------------------------------------------------------------------------


def _pem_delimiters(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ("begin"|"end", start, end) for `-----BEGIN|END ... PRIVATE KEY-----`."""
    phase = "search"
    dashes = 0
    keyword = "BEGIN "
    keyword_offset = 0
    start = 0
    suffix = ""
    for index, raw in enumerate(text):
        char = raw.upper() if "a" <= raw <= "z" else raw
        if phase == "search":
            if char == "-":
                dashes = min(5, dashes + 1)
            elif dashes == 5 and char in ("B", "E"):
                phase = "keyword"
                keyword = "BEGIN " if char == "B" else "END "
                keyword_offset = 1
                start = index - 5
            else:
                dashes = 0
        elif phase == "keyword":
            if char != keyword[keyword_offset]:
                phase, dashes, suffix = "search", (1 if char == "-" else 0), ""
            else:
                keyword_offset += 1
                if keyword_offset == len(keyword):
                    phase = "label"
                    suffix = ""
        elif phase == "label":
            if "A" <= char <= "Z" or char == " ":
                suffix = (suffix + char)[-11:]
            elif char == "-" and suffix == "PRIVATE KEY":
                phase = "close"
                dashes = 1
            else:
                phase, dashes, suffix = "search", (1 if char == "-" else 0), ""
        elif char != "-":
            phase, dashes, suffix = "search", 0, ""
        else:
            dashes += 1
            if dashes == 5:
                phase = "search"
                suffix = ""
                yield ("begin" if keyword == "BEGIN " else "end", start, index + 1)


def match_pem_blocks(text: str) -> Iterator[RedactMatch]:
    """Complete PEM private-key blocks, BEGIN line through END line."""
    open_block: tuple[int, int] | None = None
    match_end = 0
    for kind, start, end in _pem_delimiters(text):
        if open_block is None:
            if kind == "begin" and start >= match_end:
                open_block = (start, end)
            continue
        if kind != "end" or start <= open_block[1]:
            continue
        block_start = open_block[0]
        open_block = None
        match_end = end
        if end > block_start:
            yield RedactMatch(text[block_start:end], (), block_start)


# -- AWS secret access keys -----------------------------------------------------------

_AWS_VALUE_RE = re.compile(
    r"(?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40}"
)
_AWS_RUN_RE = re.compile(r"[A-Za-z0-9/+=]{40}")
_CLOSING = {'"': '"', "'": "'", "`": "`", "<": ">", "(": ")", "[": "]", "{": "}"}


def _aws_char(char: str) -> bool:
    return ("A" <= char <= "Z") or ("a" <= char <= "z") or ("0" <= char <= "9") or char in "/+="


def could_match_aws_secret_access_key(text: str) -> bool:
    """Cheap gate: a 40-character run with the AWS key's character mix exists."""
    return (
        len(text) >= 40
        and _AWS_RUN_RE.search(text) is not None
        and _AWS_VALUE_RE.search(text) is not None
    )


@dataclass(slots=True)
class _UrlContext:
    start: int
    end: int
    closing: str | None
    closing_escape_depth: int
    authority_end: int = -1
    port_start: int = -1
    port_valid: bool = True
    has_at: bool = False
    query_or_fragment: bool = False


@dataclass(frozen=True, slots=True)
class _Run:
    start: int
    end: int
    origin: int
    url: _UrlContext | None


def match_aws_secret_access_keys(text: str) -> Iterator[RedactMatch]:
    """Standalone 40-character AWS secrets, skipping public URL paths and base64 data."""
    if not could_match_aws_secret_access_key(text):
        return
    run_start = -1
    scheme_start = -1
    url: _UrlContext | None = None
    backslashes = 0
    runs: list[_Run] = []
    length = len(text)
    for index in range(length + 1):
        char = text[index] if index < length else ""
        whitespace = index == length or char in BLANK
        escape_depth = backslashes
        backslashes = backslashes + 1 if char == "\\" else 0
        if char and _aws_char(char):
            if run_start == -1:
                run_start = index
        elif run_start != -1:
            if index - run_start == 40:
                runs.append(_Run(run_start, index, run_start, url))
            elif index - run_start > 40 and char == "@" and text[index - 41] == "/":
                runs.append(_Run(index - 40, index, run_start, url))
            run_start = -1
        if whitespace:
            if url is not None:
                url.end = min(url.end, index)
            yield from _accepted_aws_runs(text, runs)
            runs = []
            scheme_start = -1
            url = None
            continue
        if url is not None and index >= url.start:
            if char == url.closing and escape_depth == url.closing_escape_depth:
                url.end = min(url.end, index)
                url = None
            else:
                if char in "?#\"'<>`|()[]{}":
                    url.end = min(url.end, index)
                url.query_or_fragment = url.query_or_fragment or char in ("?", "#")
                if url.authority_end == -1:
                    url.has_at = url.has_at or char == "@"
                    if char in "/?#":
                        url.authority_end = index
                    elif index < url.end:
                        if char == ":":
                            url.port_valid = url.port_valid and url.port_start == -1
                            url.port_start = index
                        elif url.port_start != -1 and not ("0" <= char <= "9"):
                            url.port_valid = False
        if char and (char.isascii() and (char.isalnum() or char in "+.-")):
            if scheme_start == -1:
                scheme_start = index
        else:
            if (
                (url is None or (index >= url.end and not url.query_or_fragment))
                and char == ":"
                and text.startswith("//", index + 1)
                and scheme_start != -1
                and text[scheme_start].isascii()
                and text[scheme_start].isalpha()
            ):
                opening = text[scheme_start - 1] if scheme_start >= 1 else ""
                depth = 0
                offset = scheme_start - 2
                while offset >= 0 and text[offset] == "\\":
                    depth += 1
                    offset -= 1
                url = _UrlContext(
                    start=index + 3,
                    end=length,
                    closing=_CLOSING.get(opening) if opening else None,
                    closing_escape_depth=depth,
                )
            scheme_start = -1


def _accepted_aws_runs(text: str, runs: list[_Run]) -> Iterator[RedactMatch]:
    for run in runs:
        context = run.url
        public_url = bool(
            context is not None
            and not context.has_at
            and context.port_valid
            and (
                context.port_start == -1
                or (context.end if context.authority_end == -1 else context.authority_end)
                > context.port_start + 1
            )
        )
        before = text[run.start - 1] if run.start >= 1 else ""
        after = text[run.end] if run.end < len(text) else ""
        slash_credential = run.start != run.origin
        port_credential = bool(
            context is not None
            and context.port_start != -1
            and run.origin == context.port_start + 1
            and context.authority_end > run.origin
            and run.end > context.authority_end
            and after == "@"
        )
        base64_prefix = text[max(0, run.origin - 8) : run.origin] == ";base64,"
        if (
            (not slash_credential and (before == "_" or (before != "" and _aws_char(before))))
            or after == "_"
            or base64_prefix
            or (
                public_url
                and not port_credential
                and context is not None
                and run.start >= context.start
                and run.end <= context.end
            )
        ):
            continue
        value = text[run.start : run.end]
        if _AWS_VALUE_RE.search(value):
            yield RedactMatch(value, (value,), run.start)
