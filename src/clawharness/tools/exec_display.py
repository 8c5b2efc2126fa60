"""Short, redacted labels for shell commands (`exec`/`bash`/`shell` tool calls).

`git status && cat log | grep x` becomes `check git status → show log -> search "x"`;
unknown commands fall back to the compacted raw command. Labels are for people only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.tools._js import (
    JS_WS_CHARS,
    as_object,
    js_get,
    js_len,
    js_regex,
    js_trim,
    slice_utf16_safe,
)
from clawharness.tools.exec_summaries import summarize_known_exec
from clawharness.tools.redact import redact_tool_payload_text
from clawharness.tools.shell_scan import (
    has_shell_compound_command,
    scan_top_level_chars,
    split_top_level_pipes,
    split_top_level_stages,
    strip_shell_preamble,
)
from clawharness.tools.shell_words import (
    parse_shell_words,
    trim_leading_env,
    unwrap_shell_wrapper,
)

__all__ = ["compact_raw_command", "format_inline_code_span", "resolve_exec_detail"]

_TERMINATOR_STOP_RE = js_regex(r"[\s;&|<>]", "u")
_NEWLINE_WS_RE = js_regex(r"\s*\n\s*", "g")
_WS_TWO_RE = js_regex(r"\s{2,}", "g")
_WS_RUN_RE = js_regex(r"\s+", "g")


def _summarize_simple(command: str) -> str | None:
    parsed = parse_shell_words(command)
    if parsed.unsupported:
        return None
    return summarize_known_exec(trim_leading_env(parsed.words), parsed.here_input)


def _summarize_pipeline(stage: str) -> str | None:
    pipeline = split_top_level_pipes(stage)
    if len(pipeline) > 1:
        first = _summarize_simple(pipeline[0])
        last = _summarize_simple(pipeline[-1])
        if not first or not last:
            return None
        extra = f" (+{len(pipeline) - 2} steps)" if len(pipeline) > 2 else ""
        return f"{first} -> {last}{extra}"
    return _summarize_simple(stage)


def _heredoc_terminator(line: str, raw_start: int) -> str | None:
    start = raw_start
    while start < len(line) and line[start] in JS_WS_CHARS:
        start += 1
    value = ""
    quote = ""
    index = start
    while index < len(line):
        char = line[index]
        if quote:
            if char == quote:
                quote = ""
            elif quote == '"' and char == "\\" and index + 1 < len(line):
                index += 1
                value += line[index]
            else:
                value += char
            index += 1
            continue
        if _TERMINATOR_STOP_RE.match(char):
            break
        if char in ("'", '"'):
            quote = char
        elif char == "\\" and index + 1 < len(line):
            index += 1
            value += line[index]
        else:
            value += char
        index += 1
    return value or None


def _heredoc_terminators(line: str) -> list[tuple[str, bool]]:
    found: list[tuple[str, bool]] = []

    def at(index: int) -> str:
        return line[index] if 0 <= index < len(line) else ""

    def visit(char: str, index: int) -> bool:
        if char != "<" or at(index - 1) == "<" or at(index + 1) != "<" or at(index + 2) == "<":
            return True
        strip_tabs = at(index + 2) == "-"
        parsed = _heredoc_terminator(line, index + (3 if strip_tabs else 2))
        if parsed:
            found.append((parsed, strip_tabs))
        return True

    scan_top_level_chars(line, visit)
    return found


def _without_heredoc_bodies(command: str) -> str | None:
    if "\n" not in command:
        return None
    lines = re.split(r"\r?\n", command)
    kept: list[str] = []
    found_heredoc = False
    index = 0
    while index < len(lines):
        line = lines[index]
        kept.append(line)
        terminators = _heredoc_terminators(line)
        if terminators:
            found_heredoc = True
            for value, strip_tabs in terminators:
                index += 1
                while index < len(lines):
                    candidate = lines[index].lstrip("\t") if strip_tabs else lines[index]
                    if candidate == value:
                        break
                    index += 1
        index += 1
    if not found_heredoc:
        return None
    return "; ".join(js_trim(line) for line in kept if js_trim(line))


def _classify_workspace(path: str) -> str | None:
    normalized = re.sub(r"/+\Z", "", path.replace("\\", "/"))
    segments = [segment for segment in normalized.split("/") if segment]
    if not segments:
        return None
    for index, segment in enumerate(segments):
        following = segments[index + 1] if index + 1 < len(segments) else None
        if segment == ".openclaw" and following == "workspace":
            return "agent"
        if segment == ".openclaw" and following == "sandboxes":
            return "sandbox"
        if (
            re.search(r"[-_]workspace\Z", segment, re.IGNORECASE | re.ASCII)
            and segment.lower() != "workspace"
        ):
            return "agent"
        if re.match(r"workspace[-_]", segment, re.IGNORECASE | re.ASCII):
            return "agent"
    if "Projects" in segments or "projects" in segments:
        return "repo"
    if segments[-1].lower() == "workspace":
        return "workspace"
    return None


def _cwd_suffix(cwd: str) -> str | None:
    workspace = _classify_workspace(cwd)
    if workspace == "sandbox":
        return None
    return f"({workspace})" if workspace else f"(in {cwd})"


@dataclass(frozen=True, slots=True)
class _ExecSummary:
    text: str
    chdir_path: str | None
    all_generic: bool | None


def _summarize_exec(command: str) -> _ExecSummary | None:
    stripped = strip_shell_preamble(command)
    if not stripped.command:
        return _ExecSummary("", stripped.chdir_path, None) if stripped.chdir_path else None
    without = _without_heredoc_bodies(stripped.command)
    stages = split_top_level_stages(without if without is not None else stripped.command)
    if not stages:
        return None
    summaries = [_summarize_pipeline(stage) for stage in stages]
    if any(summary is None for summary in summaries):
        return None
    texts = [summary for summary in summaries if summary is not None]
    text = texts[0] if len(texts) == 1 else " → ".join(texts)
    if not text:
        return None
    return _ExecSummary(text, stripped.chdir_path, all(_is_generic(s) for s in texts))


_KNOWN_PREFIXES = (
    "check git",
    "view git",
    "show git",
    "list git",
    "switch git",
    "create git",
    "pull git",
    "push git",
    "fetch git",
    "merge git",
    "rebase git",
    "stage git",
    "restore git",
    "reset git",
    "stash git",
    "search ",
    "find files",
    "list files",
    "show first",
    "show last",
    "print line",
    "print text",
    "copy ",
    "move ",
    "remove ",
    "create folder",
    "create file",
    "fetch http",
    "install dependencies",
    "run tests",
    "run build",
    "start app",
    "run lint",
    "run openclaw",
    "run node script",
    "run node ",
    "run python",
    "run ruby",
    "run php",
    "run sed",
    "run git ",
    "run npm ",
    "run pnpm ",
    "run yarn ",
    "run bun ",
    "check js syntax",
)


def _is_generic(summary: str) -> bool:
    if summary == "run command":
        return True
    if summary.startswith("run "):
        return not summary.startswith(_KNOWN_PREFIXES)
    return False


def compact_raw_command(raw: str, max_length: int = 120) -> str:
    """One redacted line, middle-elided to `max_length` UTF-16 units."""
    one_line = _NEWLINE_WS_RE.sub(" ", raw)
    one_line = js_trim(_WS_TWO_RE.sub(" ", one_line))
    one_line = redact_tool_payload_text(one_line)
    if js_len(one_line) <= max_length:
        return one_line
    half = math.floor((max_length - 1) / 2)
    head = slice_utf16_safe(one_line, 0, half)
    tail = slice_utf16_safe(one_line, -(max_length - 1 - half))
    return f"{head}…{tail}"


def format_inline_code_span(value: str) -> str:
    """Wrap text in a Markdown code span longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    delimiter = "`" * (longest + 1)
    padding = " " if value.startswith("`") or value.endswith("`") or "\n" in value else ""
    return f"{delimiter}{padding}{value}{padding}{delimiter}"


_ANSI_RE = re.compile(  # ASCII digits: the ECMAScript `\d`
    r"(?:\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c))"
    r"|[\x1b\x9b][\[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]",
    re.ASCII,
)


def _sanitize_terminal_text(text: str) -> str:
    if "\x1b" in text or "\x9b" in text or "\x9c" in text:
        text = _ANSI_RE.sub("", text)
    escapes = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
    return "".join(
        escapes.get(ch, "") if (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) else ch for ch in text
    )


def _exec_title(record: Any) -> str | None:
    title = js_get(record, "title")
    if not isinstance(title, str):
        return None
    text = js_trim(_sanitize_terminal_text(_WS_RUN_RE.sub(" ", title)))
    return slice_utf16_safe(redact_tool_payload_text(text), 0, 120) or None


def _exec_code(record: Any) -> str | None:
    for key in ("code", "input"):
        value = js_get(record, key)
        if isinstance(value, str) and js_trim(value):
            return value
    return None


def resolve_exec_detail(args: Any, detail_mode: Any = UNDEFINED) -> str | None:
    """Detail for a shell tool call: a summary (plus the raw command), or the raw command."""
    record = as_object(args)
    if record is None:
        return None
    title = None if detail_mode == "raw" else _exec_title(record)
    if title:
        return title
    code = _exec_code(record)
    if code:
        if detail_mode == "raw":
            return compact_raw_command(code)
        return "run TypeScript" if js_get(record, "language") == "typescript" else "run JavaScript"
    command = js_get(record, "command")
    raw = js_trim(command) if isinstance(command, str) else None
    if not raw:
        return None
    node = js_get(record, "node")
    node_name = (
        js_trim(node)
        if js_get(record, "host") == "node" and isinstance(node, str) and js_trim(node)
        else None
    )
    unwrapped = unwrap_shell_wrapper(raw)
    compact = compact_raw_command(unwrapped)
    workdir, cwd_arg = js_get(record, "workdir"), js_get(record, "cwd")
    cwd_raw = workdir if isinstance(workdir, str) else cwd_arg if isinstance(cwd_arg, str) else None
    node_fragment = f", node: {node_name}" if node_name else ""
    if has_shell_compound_command(unwrapped):
        suffix = _cwd_suffix(js_trim(cwd_raw)) if cwd_raw and js_trim(cwd_raw) else None
        return f"{f'{compact} {suffix}' if suffix else compact}{node_fragment}"
    result = _summarize_exec(unwrapped) or _summarize_exec(raw)
    summary = (result.text if result else "") or "run command"
    cwd = (js_trim(cwd_raw) if cwd_raw else "") or (result.chdir_path if result else None) or None
    cwd_suffix = _cwd_suffix(cwd) if cwd else None
    all_generic = result.all_generic if result else None
    if all_generic is not False and _is_generic(summary):
        return f"{f'{compact} {cwd_suffix}' if cwd_suffix else compact}{node_fragment}"
    display = f"{summary} {cwd_suffix}" if cwd_suffix else summary
    if detail_mode != "explain" and compact and compact != display and compact != summary:
        return f"{display}{node_fragment}, {format_inline_code_span(compact)}"
    return f"{display}{node_fragment}"
