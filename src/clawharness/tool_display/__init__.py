"""How tool calls are shown to people: `emoji Title: detail` lines for progress and chat.

`infer_tool_meta_from_args` gives the redacted one-line detail of a call; the table of
emoji, titles and which arguments make the detail is data (`tools.toml`), and so are
the labels for shell commands (`exec_labels.toml`).
"""

from __future__ import annotations

from clawharness.tool_display.details import (
    ToolDisplay,
    infer_tool_meta_from_args,
    resolve_tool_display,
    shorten_home_in_string,
)

__all__ = ["ToolDisplay", "infer_tool_meta_from_args", "resolve_tool_display", "shorten_home_in_string"]
