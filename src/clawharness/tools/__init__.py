"""Tools: policy, approvals, the host's built-in tools, and the helpers around tool calls.

Tool policy (groups, profiles, allow/deny, exec allowlists), approvals, tool-result
classification and sanitizing, replay safety, result middleware, MCP server names and
catalogs, and the compact tool surface for native harnesses. Secret redaction lives in
`clawharness.redaction`; how a tool call is shown to people, in `clawharness.tool_display`.
"""
