"""The provider error-text tables the failover classifier matches against.

Kept apart from the decision logic in `failover_text` because they are data: phrases and
patterns providers are known to use for auth failures, billing denials, rate limits,
overloads, server errors and transport timeouts (a few in Chinese, as those providers
send them).
"""

from __future__ import annotations

import re

from clawharness.attempt._js import JS_WS, js_regex

Pattern = re.Pattern[str] | str

_W = JS_WS
_F = re.IGNORECASE | re.ASCII


def _rx(source: str) -> re.Pattern[str]:
    return js_regex(source, ignore_case=True)


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
    r"^\s*429\b|\b(?:https?|status(?:[ _-]?code)?|response(?:[ _-]?code)?|http(?:[ _-]?status)?)\b"
    r"[\s:=#\"'(]{0,6}429\b|[\"'](?:status|code)[\"']\s*:\s*429\b|\b429\b[\s:)\].,-]*(?:rate[_ -]?"
    r"limit(?:ed|ing)?|too many requests|resource has been exhausted|quota(?:\s+(?:exceeded|exhausted"
    r"|depleted|reached))?)\b"
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
    _rx(r"could not (?:authenticate|validate).*(?:api[_ ]?key|credentials)"),
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
    _rx(r"\bfailed to (?:extract|parse|validate|decode)\b.*\btoken\b"),
    "无权访问",
    "认证失败",
    "鉴权失败",
    "密钥无效",
    "apikey 无效",
    _rx(r"\"code\"\s*:\s*1113\b"),
    _rx(
        r"(?:当前\s*ak|ce-011).*?(?:违规请求|禁止访问)|(?:违规请求|禁止访问).*?(?:当前\s*ak|ce-011)"
    ),
    _rx(r"\bce-011\b"),
]
RATE_LIMIT: list[Pattern] = [
    _rx(r"rate[_ ]limit|too many requests"),
    _rx(_RATE_LIMIT_429),
    _rx(r"too many (?:concurrent )?requests"),
    _rx(r"\bthrottl(?:ing[_]?exception|ing|ed)\b"),
    _rx(r"\bconcurrency limit\b.*\b(?:breached|reached)\b"),
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
    _rx(r"overloaded_error|\"type\"\s*:\s*\"overloaded_error\""),
    "overloaded",
    _rx(r"\b(?:selected\s+)?model\s+(?:is\s+)?at capacity\b"),
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
    _rx(r"^(?=[\s\S]*\bgot status:\s*internal\b)(?=[\s\S]*\bcode[\"']?\s*[:=]\s*500\b)"),
    _rx(
        r"^(?=[\s\S]*[\"']status[\"']\s*:\s*[\"']internal[\"'])(?=[\s\S]*[\"']code[\"']\s*:\s*500\b)"
    ),
    "connection error",
    "network error",
    "network request failed",
    "fetch failed",
    "socket hang up",
    _rx(r"^stream disconnected before completion(?::[\s\S]*)?\Z"),
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
    _rx(r"\bstop reason:\s*(?:abort|malformed_response|network_error)\b"),
    _rx(r"\breason:\s*(?:abort|malformed_response|network_error)\b"),
    _rx(r"\bunhandled stop reason:\s*(?:abort|malformed_response|network_error)\b"),
    _rx(r"\bfinish_reason:\s*(?:abort|malformed_response|network_error)\b"),
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
        r"[\"']?(?:status|code)[\"']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b"
        r"|^\s*402\s+payment"
    ),
    _rx(r"\b(?:got|returned|received)\s+(?:a\s+)?402\b(?!\s+records\b)"),
    "payment required",
    "insufficient credits",
    _rx(r"used\s+all\s+available\s+credits"),
    _rx(r"(?:monthly\s+)?spend(?:ing)?\s+limit"),
    _rx(r"insufficient[_ ]quota"),
    _rx(r"\b(?:go|free)usagelimiterror\b"),
    "available balance",
    "out of budget",
    "credit balance",
    "plans & billing",
    _rx(r"insufficient[_ ]balance"),
    _rx(r"\binsufficient\s+\w+\s+balance\b"),
    "insufficient usd or diem balance",
    _rx(r"requires?\s+more\s+credits"),
    _rx(r"out of extra usage"),
    _rx(r"draw from your extra usage"),
    _rx(r"extra usage is required(?: for long context requests)?"),
    "余额不足",
    "账户余额不足",
    "欠费",
    "账户已欠费",
    _rx(r"\"code\"\s*:\s*\"invalidsubscription\""),
    _rx(r"\bdoes not have a valid coding\s*plan subscription\b"),
    _rx(r"\"code\"\s*:\s*1311\b"),
    _rx(r"\bcurrent\s+subscription\s+plan\b.*\b(?:does\s+not|doesn't|not)\b.*\binclude\s+access\b"),
    _rx(r"\bmodel\b.*\bnot\s+available\b.*\bcurrent\s+plan\b"),
]
FINISH_REASON_ERROR: list[Pattern] = [
    _rx(r"\bfinish_reason:\s*error\b"),
    _rx(r"\bstop reason:\s*error\b"),
    _rx(r"\bunhandled stop reason:\s*error\b"),
    _rx(r"\breason:\s*error\b"),
]
FORMAT: list[Pattern] = [
    "string should match pattern",
    "tool_use.id",
    "tool_use_id",
    "messages.1.content.1.tool_use.id",
    "invalid request format",
    _rx(r"tool call id was.*must be"),
    "does not support assistant message prefill",
    "conversation must end with a user message",
    _rx(r"agent harness .* does not support .*provider is not one of"),
]

PERIODIC_USAGE_LIMIT = _rx(
    r"\b(?:daily|weekly|monthly)(?:/(?:daily|weekly|monthly))* (?:usage )?limit(?:s)?"
    r"(?: (?:exhausted|reached|exceeded))?\b"
)
BILLING_HEAD = _rx(
    r"^(?:error[:\s-]+)?billing(?:\s+error)?(?:[:\s-]+|\Z)|^(?:error[:\s-]+)?(?:credit balance"
    r"|insufficient credits?|payment required|http\s*402\b)"
)
STATUS_ISE = _rx(r"\bstatus:\s*internal server error\b")
STATUS_ISE_500 = _rx(
    r"^(?=[\s\S]*\bstatus:\s*internal server error\b)(?=[\s\S]*\bcode[\"']?\s*[:=]\s*500\b)"
)
HTTP_5XX = _rx(r"\bhttp\s+5\d\d\b")
LEADING_STATUS = re.compile(
    f"^(?:http{_W}*)?([0-9]{{3}})(?:(?:{_W}*:{_W}*|{_W}+)([\\s\\S]+))?\\Z", _F
)
ERROR_PREFIX = _rx(r"^error:\s*")
RAW_402 = _rx(
    r"[\"']?(?:status|code)[\"']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b"
    r"|\b(?:got|returned|received)\s+(?:a\s+)?402\b|^\s*402\s+(?:payment required\b|.*used up your "
    r"points\b|no available asset for api access\b)"
)
LEADING_402_WRAPPER = _rx(
    r"^(?:error[:\s-]+)?(?:(?:http\s*)?402(?:\s+payment required)?|payment required)(?:[:\s-]+|\Z)"
)
SESSION_EXPIRED = _rx(
    r"\b(?:session (?:not found|does not exist|expired|invalid)|conversation (?:not found|does not "
    r"exist|expired|invalid)|no conversation found|no such session|invalid session|(?:session|"
    r"conversation) id not found)\b"
)
REPLAY_INVALID = _rx(
    r"\bprevious_response_id\b.*\b(?:invalid|unknown|not found|does not exist|expired|mismatch)\b"
    r"|\btool_(?:use|call)\.(?:input|arguments)\b.*\b(?:missing|required)\b|\bincorrect role "
    r"information\b|\broles must alternate\b|\binput item id does not belong to this connection\b"
)
CONTEXT_OVERFLOW = _rx(
    r"^(?:context overflow:|request_too_large\b|request size exceeds\b|request exceeds the maximum "
    r"size\b|context length exceeded\b|maximum context length\b|prompt is too long\b|exceeds model "
    r"context window\b)|context_length_exceeded|maximum context length|prompt is too long"
    r"|context window exceeded"
)
API_ERROR_TRANSIENT = _rx(
    r"internal server error|overload|temporarily unavailable|service unavailable|unknown error|server "
    r"error|bad gateway|gateway timeout|upstream error|backend error|try again later|temporarily.+"
    r"unable|unexpected error"
)
HTML_BODY = _rx(r"^\s*(?:<!doctype\s+html\b|<html\b)")
HTML_CLOSE = _rx(r"</html>")
TRANSIENT_STATUS = {499, 500, 502, 503, 504, 521, 522, 523, 524, 529}
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
