"""The provider error-text tables the failover classifier matches against.

Data, kept apart from the decisions in `providers.failover`: the phrases and patterns
providers are known to use for auth failures, billing denials, rate limits, overloads,
server errors and transport timeouts (a few in Chinese, as those providers send them).
A `str` entry matches as a substring of the lowercased, trimmed text.

The patterns are compiled with `re.ASCII | re.IGNORECASE`, so `\\b` and `\\w` are
ASCII-based and only ASCII letters fold case. They are written with three named pieces
because the tables were authored for that engine's classes, not Python's:

- `{_S}` is the whitespace of `clawharness._text.BLANK` (Unicode spaces, line
  terminators and U+FEFF; with re.ASCII Python's `\\s` would be six ASCII characters);
- `{_S_IN}` is the same set for use inside a character class;
- `{_LINE}` is any character except a line terminator (\\n, \\r, U+2028, U+2029), where
  Python's `.` would still cross \\r and the two Unicode separators.

`\\Z` anchors at the end of the text (Python's `$` would also match before a final
newline).
"""

from __future__ import annotations

import re
from typing import Final

from clawharness._text import BLANK_CLASS

__all__ = [
    "API_ERROR_TRANSIENT",
    "AUTH",
    "AUTH_PERMANENT",
    "BILLING",
    "BILLING_402_HINTS",
    "BILLING_402_PLAN_HINTS",
    "BILLING_HEAD",
    "CONTEXT_OVERFLOW",
    "ERROR_PREFIX",
    "FINISH_REASON_ERROR",
    "FORMAT",
    "HTML_BODY",
    "HTML_CLOSE",
    "HTTP_5XX",
    "LEADING_402_WRAPPER",
    "LEADING_STATUS",
    "MODEL_NOT_FOUND",
    "NO_BODY",
    "OVERLOADED",
    "PERIODIC_USAGE_LIMIT",
    "RATE_LIMIT",
    "RAW_402",
    "REPLAY_INVALID",
    "SERVER_ERROR",
    "SESSION_EXPIRED",
    "STATUS_ISE",
    "STATUS_ISE_500",
    "TIMEOUT",
    "TRANSIENT_STATUS",
    "UNKNOWN_ERROR_ONLY",
    "LazyPattern",
    "Pattern",
]

_FLAGS: Final = re.IGNORECASE | re.ASCII
_S: Final = BLANK_CLASS
_S_IN: Final = BLANK_CLASS[1:-1]
_LINE: Final = "[^\\n\\r\\u2028\\u2029]"


class LazyPattern:
    """A table pattern, compiled the first time it is used: compiling the tables took
    about a twentieth of every command's start-up, and most processes never classify a
    provider failure."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, _FLAGS)
        return compiled

    def search(self, string: str) -> re.Match[str] | None:
        return self.compiled.search(string)

    def match(self, string: str) -> re.Match[str] | None:
        return self.compiled.match(string)

    def sub(self, repl: str, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count=count)


Pattern = LazyPattern | str


def _rx(pattern: str) -> LazyPattern:
    return LazyPattern(pattern)


_INCOMPLETE_STREAM = (
    r"^(?:[\w -]*stream ended (?:before (?:message_?stop|(?:a )?terminal (?:finish reason|response "
    r"event|event))|without (?:a terminal )?finish[_ ]reason)|responses stream ended with unresolved "
    r"tool calls|google sse stream ended with an incomplete frame)[.!]?\Z"
)
_INVALID_API_KEY = (
    r"(?:invalid[_ ]?api[_ ]?key(?![a-z0-9])|api[_ ]?key(?:[_ ]?(?:is[_ ]?)?(?:invalid(?![a-z0-9])"
    r"|not[_ ]?valid(?![a-z0-9]))))"
)
_RATE_LIMIT_429 = (
    rf"^{_S}*429\b|\b(?:https?|status(?:[ _-]?code)?|response(?:[ _-]?code)?|http(?:[ _-]?status)?)\b"
    rf"[{_S_IN}:=#\"'(]{{0,6}}429\b|[\"'](?:status|code)[\"']{_S}*:{_S}*429\b|\b429\b[{_S_IN}:)\].,-]*"
    rf"(?:rate[_ -]?limit(?:ed|ing)?|too many requests|resource has been exhausted|quota(?:{_S}+"
    rf"(?:exceeded|exhausted|depleted|reached))?)\b"
)

AUTH_PERMANENT: list[Pattern] = [
    _rx(r"api[_ ]?key[_ ]?(?:revoked|deactivated|deleted)"),
    _rx(r"deactivated[_ ]workspace"),
    "key has been disabled",
    "key has been revoked",
    "account has been deactivated",
    "not allowed for this organization",
]
AUTH: list[Pattern] = [
    _rx(_INVALID_API_KEY),
    _rx(rf"could not (?:authenticate|validate){_LINE}*(?:api[_ ]?key|credentials)"),
    "permission_error",
    "incorrect api key",
    "invalid token",
    "authentication",
    "re-authenticate",
    "oauth token refresh failed",
    "unauthorized",
    "forbidden",
    "access denied",
    "insufficient permissions",
    "insufficient permission",
    _rx(r"missing scopes?:"),
    "expired",
    "token has expired",
    _rx(r"\b401\b"),
    _rx(r"\b403\b"),
    "no credentials found",
    "no api key found",
    _rx(rf"\bfailed to (?:extract|parse|validate|decode)\b{_LINE}*\btoken\b"),
    "无权访问",
    "认证失败",
    "鉴权失败",
    "密钥无效",
    "apikey 无效",
    _rx(rf"\"code\"{_S}*:{_S}*1113\b"),
    _rx(
        rf"(?:当前{_S}*ak|ce-011){_LINE}*?(?:违规请求|禁止访问)|(?:违规请求|禁止访问){_LINE}*?"
        rf"(?:当前{_S}*ak|ce-011)"
    ),
    _rx(r"\bce-011\b"),
]
RATE_LIMIT: list[Pattern] = [
    _rx(r"rate[_ ]limit|too many requests"),
    _rx(_RATE_LIMIT_429),
    _rx(r"too many (?:concurrent )?requests"),
    _rx(r"\bthrottl(?:ing[_]?exception|ing|ed)\b"),
    _rx(rf"\bconcurrency limit\b{_LINE}*\b(?:breached|reached)\b"),
    "model_cooldown",
    "exceeded your current quota",
    _rx(r"\bresource[_ -]?exhausted\b"),
    _rx(r"\bquota[_ -]?exceeded\b"),
    "usage limit",
    _rx(r"\btpm\b"),
    "tokens per minute",
    "tokens per day",
    "请求过于频繁",
    "调用频率",
    "频率限制",
    "配额不足",
    "配额已用尽",
    "额度不足",
    "额度已用尽",
]
OVERLOADED: list[Pattern] = [
    _rx(rf"overloaded_error|\"type\"{_S}*:{_S}*\"overloaded_error\""),
    "overloaded",
    _rx(rf"\b(?:selected{_S}+)?model{_S}+(?:is{_S}+)?at capacity\b"),
    _rx(r"\bservice(?:[_ ]temporarily)?[_ ]unavailable\b"),
    "high demand",
    "high load",
    "服务过载",
    "当前负载过高",
    "访问量过大",
]
SERVER_ERROR: list[Pattern] = [
    "an error occurred while processing",
    "internal server error",
    "internal_error",
    "server_error",
    "bad gateway",
    "gateway timeout",
    "upstream error",
    "upstream connect error",
    "connection reset",
    "内部错误",
    "服务器错误",
    "服务器内部错误",
    "系统错误",
    "系统繁忙",
    "系统异常",
]
TIMEOUT: list[Pattern] = [
    "timeout",
    "timed out",
    "deadline exceeded",
    "context deadline exceeded",
    _rx(
        rf"^(?=[{_S_IN}\S]*\bgot status:{_S}*internal\b)(?=[{_S_IN}\S]*\bcode[\"']?{_S}*[:=]{_S}*"
        rf"500\b)"
    ),
    _rx(
        rf"^(?=[{_S_IN}\S]*[\"']status[\"']{_S}*:{_S}*[\"']internal[\"'])(?=[{_S_IN}\S]*[\"']code"
        rf"[\"']{_S}*:{_S}*500\b)"
    ),
    "connection error",
    "network error",
    "network request failed",
    "fetch failed",
    "socket hang up",
    _rx(rf"^stream disconnected before completion(?::[{_S_IN}\S]*)?\Z"),
    _rx(r"^premature close of server response while trying to fetch\b"),
    _rx(_INCOMPLETE_STREAM),
    "网络错误",
    "网络异常",
    "服务暂时不可用",
    "服务繁忙",
    "请求超时",
    "连接超时",
    "连接错误",
    _rx(r"\beconn(?:refused|reset|aborted)\b"),
    _rx(r"\benetunreach\b"),
    _rx(r"\behostunreach\b"),
    _rx(r"\behostdown\b"),
    _rx(r"\benetreset\b"),
    _rx(r"\betimedout\b"),
    _rx(r"\besockettimedout\b"),
    _rx(r"\bepipe\b"),
    _rx(r"\benotfound\b"),
    _rx(r"\beai_again\b"),
    _rx(r"without sending (?:any )?chunks?"),
    _rx(rf"\bstop reason:{_S}*(?:abort|malformed_response|network_error)\b"),
    _rx(rf"\breason:{_S}*(?:abort|malformed_response|network_error)\b"),
    _rx(rf"\bunhandled stop reason:{_S}*(?:abort|malformed_response|network_error)\b"),
    _rx(rf"\bfinish_reason:{_S}*(?:abort|malformed_response|network_error)\b"),
    _rx(r"\boperation was aborted\b"),
    _rx(r"\bstream (?:was )?(?:closed|aborted)\b"),
    _rx(r"^terminated\Z"),
    _rx(r"^stream_read_error\Z"),
    _rx(r"\bund_err_(?:socket|connect|headers?|body|req_content_length_mismatch|aborted|closed)\b"),
    _rx(r"^request failed\Z"),
    _rx(r"\brequest failed after repeated internal retries\b"),
    _rx(r"^llm request failed\.\Z"),
]
BILLING: list[Pattern] = [
    _rx(
        rf"[\"']?(?:status|code)[\"']?{_S}*[:=]{_S}*402\b|\bhttp{_S}*402\b|\berror(?:{_S}+code)?"
        rf"{_S}*[:=]?{_S}*402\b|^{_S}*402{_S}+payment"
    ),
    _rx(rf"\b(?:got|returned|received){_S}+(?:a{_S}+)?402\b(?!{_S}+records\b)"),
    "payment required",
    "insufficient credits",
    _rx(rf"used{_S}+all{_S}+available{_S}+credits"),
    _rx(rf"(?:monthly{_S}+)?spend(?:ing)?{_S}+limit"),
    _rx(r"insufficient[_ ]quota"),
    _rx(r"\b(?:go|free)usagelimiterror\b"),
    "available balance",
    "out of budget",
    "credit balance",
    "plans & billing",
    _rx(r"insufficient[_ ]balance"),
    _rx(rf"\binsufficient{_S}+\w+{_S}+balance\b"),
    "insufficient usd or diem balance",
    _rx(rf"requires?{_S}+more{_S}+credits"),
    _rx(r"out of extra usage"),
    _rx(r"draw from your extra usage"),
    _rx(r"extra usage is required(?: for long context requests)?"),
    "余额不足",
    "账户余额不足",
    "欠费",
    "账户已欠费",
    _rx(rf"\"code\"{_S}*:{_S}*\"invalidsubscription\""),
    _rx(rf"\bdoes not have a valid coding{_S}*plan subscription\b"),
    _rx(rf"\"code\"{_S}*:{_S}*1311\b"),
    _rx(
        rf"\bcurrent{_S}+subscription{_S}+plan\b{_LINE}*\b(?:does{_S}+not|doesn't|not)\b{_LINE}*"
        rf"\binclude{_S}+access\b"
    ),
    _rx(rf"\bmodel\b{_LINE}*\bnot{_S}+available\b{_LINE}*\bcurrent{_S}+plan\b"),
]
FINISH_REASON_ERROR: list[Pattern] = [
    _rx(rf"\bfinish_reason:{_S}*error\b"),
    _rx(rf"\bstop reason:{_S}*error\b"),
    _rx(rf"\bunhandled stop reason:{_S}*error\b"),
    _rx(rf"\breason:{_S}*error\b"),
]
FORMAT: list[Pattern] = [
    "string should match pattern",
    "tool_use.id",
    "tool_use_id",
    "messages.1.content.1.tool_use.id",
    "invalid request format",
    _rx(rf"tool call id was{_LINE}*must be"),
    "does not support assistant message prefill",
    "conversation must end with a user message",
    _rx(rf"agent harness {_LINE}* does not support {_LINE}*provider is not one of"),
]

PERIODIC_USAGE_LIMIT = _rx(
    r"\b(?:daily|weekly|monthly)(?:/(?:daily|weekly|monthly))* (?:usage )?limit(?:s)?"
    r"(?: (?:exhausted|reached|exceeded))?\b"
)
BILLING_HEAD = _rx(
    rf"^(?:error[:{_S_IN}-]+)?billing(?:{_S}+error)?(?:[:{_S_IN}-]+|\Z)|^(?:error[:{_S_IN}-]+)?"
    rf"(?:credit balance|insufficient credits?|payment required|http{_S}*402\b)"
)
STATUS_ISE = _rx(rf"\bstatus:{_S}*internal server error\b")
STATUS_ISE_500 = _rx(
    rf"^(?=[{_S_IN}\S]*\bstatus:{_S}*internal server error\b)(?=[{_S_IN}\S]*\bcode[\"']?{_S}*[:=]"
    rf"{_S}*500\b)"
)
HTTP_5XX = _rx(rf"\bhttp{_S}+5\d\d\b")
LEADING_STATUS = _rx(rf"^(?:http{_S}*)?([0-9]{{3}})(?:(?:{_S}*:{_S}*|{_S}+)([\s\S]+))?\Z")
ERROR_PREFIX = _rx(rf"^error:{_S}*")
RAW_402 = _rx(
    rf"[\"']?(?:status|code)[\"']?{_S}*[:=]{_S}*402\b|\bhttp{_S}*402\b|\berror(?:{_S}+code)?{_S}*"
    rf"[:=]?{_S}*402\b|\b(?:got|returned|received){_S}+(?:a{_S}+)?402\b|^{_S}*402{_S}+(?:payment "
    rf"required\b|{_LINE}*used up your points\b|no available asset for api access\b)"
)
LEADING_402_WRAPPER = _rx(
    rf"^(?:error[:{_S_IN}-]+)?(?:(?:http{_S}*)?402(?:{_S}+payment required)?|payment required)"
    rf"(?:[:{_S_IN}-]+|\Z)"
)
SESSION_EXPIRED = _rx(
    r"\b(?:session (?:not found|does not exist|expired|invalid)|conversation (?:not found|does not "
    r"exist|expired|invalid)|no conversation found|no such session|invalid session|(?:session|"
    r"conversation) id not found)\b"
)
MODEL_NOT_FOUND = _rx(r"model(?:[_\-\s])?not(?:[_\-\s])?found|unknown model|not_found_error")
REPLAY_INVALID = _rx(
    rf"\bprevious_response_id\b{_LINE}*\b(?:invalid|unknown|not found|does not exist|expired|"
    rf"mismatch)\b|\btool_(?:use|call)\.(?:input|arguments)\b{_LINE}*\b(?:missing|required)\b|"
    r"\bincorrect role information\b|\broles must alternate\b|\binput item id does not belong to "
    r"this connection\b"
)
CONTEXT_OVERFLOW = _rx(
    r"^(?:context overflow:|request_too_large\b|request size exceeds\b|request exceeds the maximum "
    r"size\b|context length exceeded\b|maximum context length\b|prompt is too long\b|exceeds model "
    r"context window\b)|context_length_exceeded|maximum context length|prompt is too long"
    r"|context window exceeded"
)
API_ERROR_TRANSIENT = _rx(
    r"internal server error|overload|temporarily unavailable|service unavailable|unknown error|server "
    rf"error|bad gateway|gateway timeout|upstream error|backend error|try again later|temporarily"
    rf"{_LINE}+unable|unexpected error"
)
UNKNOWN_ERROR_ONLY = _rx(rf"^{_S}*an unknown error occurred\.?{_S}*\Z")
NO_BODY = _rx(r"^(?:no body(?: response)?|no response body|status code \(no body\))\Z")
HTML_BODY = _rx(rf"^{_S}*(?:<!doctype{_S}+html\b|<html\b)")
HTML_CLOSE = _rx(r"</html>")
TRANSIENT_STATUS = frozenset({499, 500, 502, 503, 504, 521, 522, 523, 524, 529})
BILLING_402_HINTS = (
    "insufficient credits",
    "insufficient quota",
    "credit balance",
    "insufficient balance",
    "plans & billing",
    "add more credits",
    "top up",
)
BILLING_402_PLAN_HINTS = ("upgrade your plan", "upgrade plan", "current plan", "subscription")
