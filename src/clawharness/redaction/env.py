"""Which environment variables hold secrets: by name, and by what the value looks like.

A name says it (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, `MYSQL_PWD`, `GH_PAT`,
`SENTRY_DSN`, `OTEL_EXPORTER_OTLP_HEADERS`, `HTTP_AUTHORIZATION`, `AWS_SESSION_TOKEN`,
...; not `GIT_AUTHOR_NAME` nor the shell's `PWD`), or the value does whatever the name:
`DATABASE_URL=postgres://app:<password>@db/app`, a `ghp_...` token in `GIT_REMOTE`, a value
the host holds as a secret (`known`). The exec tool leaves every such variable out of a
command's environment, and the host masks their values wherever they appear
(`clawharness.redaction.known`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from clawharness.redaction.fields import redact_tool_payload_text
from clawharness.redaction.known import mask_known_secrets

__all__ = ["is_secret_variable", "is_secret_variable_name"]

_SECRET_NAME: Final = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH(?!OR(?!IZ))|COOKIE|SESSION|PRIVATE"
    r"|SIGNATURE"
    r"|(?:^|_)(?:PAT|PWD|DSN|HEADERS?|CERT_PASS|CONN(?:ECTION)?_STRING)(?:$|_)",
    re.IGNORECASE)
#: named like a secret but holding none (the shell's working directories, a socket path)
_NOT_SECRET_NAMES: Final = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK", "XDG_SESSION_ID",
                                      "XDG_SESSION_TYPE", "XDG_SESSION_CLASS",
                                      "XDG_SESSION_DESKTOP", "DESKTOP_SESSION"})


def is_secret_variable_name(name: str) -> bool:
    """Whether the name alone marks a variable as a secret."""
    return name.upper() not in _NOT_SECRET_NAMES and _SECRET_NAME.search(name) is not None


@lru_cache(maxsize=1024)
def _value_looks_secret(name: str, value: str) -> bool:
    if not value:
        return False
    if mask_known_secrets(value) != value:
        return True
    # as `NAME=value`, so the field shapes see the name as well as the value
    assignment = f"{name}={value}"
    return redact_tool_payload_text(assignment) != assignment


def is_secret_variable(name: str, value: str) -> bool:
    """Whether `name=value` holds a secret, by its name or by its value's shape."""
    return is_secret_variable_name(name) or _value_looks_secret(name, value)
