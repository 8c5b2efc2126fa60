"""The built-in secret patterns, as data: what each secret looks like and how it is treated.

Each entry is a Python `re` pattern (compiled with `re.ASCII`, and `re.IGNORECASE` unless
`ignore_case=False`) whose last non-empty group is the secret to mask. The patterns were
recorded from the original's logging redactor and are applied in this order, field and
assignment shapes first, then vendor token shapes; `{BLANK}` and friends (see
`_classes`) stand for the whitespace set secrets end at.

Flags on an entry:
- `model_visible=False`: an ambiguous `KEY=value` shape, too common in real tool output
  to redact there; it still applies to tool-call arguments and details.
- `keeps_shell_references`: `KEY=$KEY` and `KEY=${KEY}` are references, not secrets.
- `value_may_run_into_form_pair`: a matched value that runs on into `&other=` is cut
  there, and only the part before is masked.
- `whole_text_only`: the pattern needs the whole text (long texts are otherwise
  redacted in chunks, to bound the work per pattern).
- `skips_base64_data`: no match right after inline base64 data (`;base64,…`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from clawharness.redaction._classes import BLANK, BLANK_MEMBERS, LINE_CHAR

__all__ = ["FIELD_PATTERNS", "VENDOR_PATTERNS", "SecretPatternSpec"]


@dataclass(frozen=True, slots=True)
class SecretPatternSpec:
    """One secret shape (see the module docstring for the flags)."""

    name: str
    #: None: the secret is found by the scanner of this name (see `scanners`)
    pattern: str | None
    ignore_case: bool = True
    model_visible: bool = True
    keeps_shell_references: bool = False
    value_may_run_into_form_pair: bool = False
    whole_text_only: bool = False
    skips_base64_data: bool = False


#: field- and assignment-shaped secrets, then PEM private-key blocks
FIELD_PATTERNS: Final[tuple[SecretPatternSpec, ...]] = (
    SecretPatternSpec(
        "ENV_ASSIGNMENT",
        rf"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN)\b{BLANK}*[=:]{BLANK}*([\"']?)([^{BLANK_MEMBERS}\"'\\]+)\1",
        ignore_case=False,
        model_visible=False,
        keeps_shell_references=True,
    ),
    SecretPatternSpec(
        "ESCAPED_ENV_ASSIGNMENT",
        rf"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN)\b{BLANK}*[=:]{BLANK}*\\+([\"'])([^{BLANK_MEMBERS}\"'\\]+)\\+\1",
        ignore_case=False,
        model_visible=False,
        keeps_shell_references=True,
    ),
    SecretPatternSpec(
        "STRUCTURED_JSON_SECRET",
        rf"\"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd|aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret|secret_input|key_material)\"{BLANK}*:{BLANK}*\"([^\"]+)\"",
        model_visible=False,
    ),
    SecretPatternSpec(
        "STRUCTURED_JSON_PAYMENT",
        rf"\"(?:cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token)\"{BLANK}*:{BLANK}*\"([^\"]+)\"",
    ),
    SecretPatternSpec(
        "AMBIGUOUS_QUOTED_SECRET_FIELD",
        rf"(^|[{BLANK_MEMBERS},{{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)[\"']?{BLANK}*[:=]{BLANK}*([\"'])([^\"'\r\n]+)\2",
        model_visible=False,
    ),
    SecretPatternSpec(
        "AMBIGUOUS_QUOTED_AUTH_FIELD",
        rf"(^|[{BLANK_MEMBERS},{{])[\"']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)[\"']?{BLANK}*[:=]{BLANK}*([\"'])([^\"'\r\n]+)\2",
        model_visible=False,
    ),
    SecretPatternSpec(
        "CLI_SECRET_FLAG_EQUALS",
        rf"--(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([^{BLANK_MEMBERS}\"']+)",
    ),
    SecretPatternSpec(
        "CLI_SECRET_FLAG_SPACED",
        rf"--(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token){BLANK}+(?!(?:or|and)\b(?={BLANK}+--))([\"']?)([^{BLANK_MEMBERS}\"']+)\1",
    ),
    SecretPatternSpec(
        "AUTHORIZATION_BEARER",
        rf"Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t\r\n]*|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)Bearer(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AUTHORIZATION_BASIC",
        rf"Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t\r\n]*|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)Basic(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AUTHORIZATION_BOT",
        rf"Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t\r\n]*|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]*|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)Bot(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "PROXY_AUTHORIZATION_SCHEME",
        rf"(^|[^A-Za-z0-9_-]|\\{{1,64}}[rn])Proxy-Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "PROXY_AUTHORIZATION_OPAQUE",
        rf"(^|[^A-Za-z0-9_-]|\\{{1,64}}[rn])Proxy-Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))[ \t]*(?=(?:\\{{1,64}}[\"']|[\"']|)(?:\Z|[,;)}}\]]|\r?\n(?![ \t])))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AUTHORIZATION_OTHER_SCHEME",
        rf"(^|[^A-Za-z0-9_-]|\\{{1,64}}[rn])Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)(?!(?:Bearer|Basic|Bot)(?=(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)))[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AUTHORIZATION_OPAQUE",
        rf"(^|[^A-Za-z0-9_-]|\\{{1,64}}[rn])Authorization(?:\\{{1,64}}[\"']|[\"']|)[ \t]*[:=](?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)(?!(?:Bearer|Basic|Bot)(?=(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]+)))((?:\[REDACTED\]|[^{BLANK_MEMBERS}\\\"',;&#?<>)}}\]]+))[ \t]*(?=(?:\\{{1,64}}[\"']|[\"']|)(?:\Z|[,;)}}\]]|\r?\n(?![ \t])))",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "CREDENTIAL_STYLE_COLON_HEADER",
        rf"(^|[^A-Za-z0-9_?&-]|\\{{1,64}}[rn])(?:x-goog-api-key|api-key|apikey|x-api-token|x-access-token)(?:\\{{1,64}}[\"']|[\"']|)[ \t]*:(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)([^{BLANK_MEMBERS}\\\"',;]+)",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "CREDENTIAL_STYLE_EQUALS_ASSIGNMENT",
        rf"(^|[^A-Za-z0-9_?&-]|\\{{1,64}}[rn])(?:x-goog-api-key|api-key|apikey|x-api-token|x-access-token)(?:\\{{1,64}}[\"']|[\"']|)[ \t]*=(?:[ \t]*\r?\n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}r\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}n(?:[ \t]+|\\{{1,64}}t)|[ \t]*\\{{1,64}}t[ \t]*|[ \t]*)(?:\\{{1,64}}[\"']|[\"']|)([^{BLANK_MEMBERS}\\\"',;]+)",
        whole_text_only=True,
        value_may_run_into_form_pair=True,
    ),
    SecretPatternSpec(
        "GATEWAY_SECURITY_COLON_HEADER",
        rf"(^|[^A-Za-z0-9_?&-]|\\{{1,64}}[rn])(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token){BLANK}*:{BLANK}*([^{BLANK_MEMBERS}\"',;]+)",
    ),
    SecretPatternSpec(
        "GATEWAY_SECURITY_EQUALS_ASSIGNMENT",
        rf"(^|[^A-Za-z0-9_?&-]|\\{{1,64}}[rn])(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token){BLANK}*={BLANK}*([^{BLANK_MEMBERS}\"',;]+)",
        value_may_run_into_form_pair=True,
    ),
    SecretPatternSpec(
        "STANDALONE_BEARER",
        rf"\bBearer{BLANK}+([-A-Za-z0-9._~+/=]{{18,}})(?![-A-Za-z0-9._~+/=])",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "URL_USERINFO_PASSWORD",
        rf"\b(?:https?|wss?|ftp)://[^/{BLANK_MEMBERS}:@]*:([^/{BLANK_MEMBERS}@]+)@",
    ),
    SecretPatternSpec(
        "DATABASE_URL_PASSWORD",
        rf"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?)://[^:{BLANK_MEMBERS}/@]*:([^@{BLANK_MEMBERS}]+)@",
    ),
    SecretPatternSpec(
        "FORM_BODY_FIRST_PAIR",
        rf"(^|[{BLANK_MEMBERS},;])(?:access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey|client[-_]?secret|app[-_]?secret|private[-_]?key|aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|credential|authorization|token|key|secret|password|pass|passwd|auth|jwt|session|code|signature|x[-_]?amz[-_]?(?:signature|security[-_]?token)|app[-_]?secret|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([^&{BLANK_MEMBERS}]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
    ),
    SecretPatternSpec(
        "STANDALONE_ASSIGNMENT_QUOTED",
        rf"(^|[{BLANK_MEMBERS},;({{\[\"])(?:access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([\"'\x60])((?:(?!\2)[^\r\n])+)\2",
        model_visible=False,
        keeps_shell_references=True,
    ),
    SecretPatternSpec(
        "STANDALONE_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},;({{\[\"])(?:access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([\"'\x60]?[^{BLANK_MEMBERS}&#\"'\x60<>]+)",
        model_visible=False,
        keeps_shell_references=True,
    ),
    SecretPatternSpec(
        "CONFIG_QUOTED_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},{{])(?:(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)(?:{BLANK}*:{BLANK}*|{BLANK}+={BLANK}*|={BLANK}*)|[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:password|passphrase|pass|passwd){BLANK}*[:=]{BLANK}*|[a-z0-9_.-]{{1,80}}\.(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token){BLANK}*[:=]{BLANK}*)([\"'\x60])((?:(?!\2)[^\r\n])+)\2",
        ignore_case=False,
        model_visible=False,
    ),
    SecretPatternSpec(
        "CONFIG_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},{{])(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)(?:{BLANK}*:{BLANK}*|{BLANK}+={BLANK}*|={BLANK}+)([^{BLANK_MEMBERS}#\"'\x60<>]+)",
        ignore_case=False,
        model_visible=False,
    ),
    SecretPatternSpec(
        "CONFIG_DIRECT_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},{{])(?:access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|passphrase)=([^{BLANK_MEMBERS}#\"'\x60<>]+)",
        ignore_case=False,
        model_visible=False,
    ),
    SecretPatternSpec(
        "CONFIG_PREFIXED_PASSWORD_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},{{])[a-z0-9][a-z0-9._-]{{0,79}}[-_](?:password|passphrase|pass|passwd){BLANK}*[:=]{BLANK}*([^{BLANK_MEMBERS}#\"'\x60<>]+)",
        ignore_case=False,
        model_visible=False,
    ),
    SecretPatternSpec(
        "CONFIG_NAMESPACED_ASSIGNMENT",
        rf"(^|[{BLANK_MEMBERS},{{])[a-z0-9_.-]{{1,80}}\.(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token){BLANK}*[:=]{BLANK}*([^{BLANK_MEMBERS}#\"'\x60<>]+)",
        ignore_case=False,
        model_visible=False,
    ),
    SecretPatternSpec("PEM_BLOCK", None),
    SecretPatternSpec(
        "AWS_SECRET_ACCESS_KEY_FIELD",
        rf"(^|[{BLANK_MEMBERS},{{])[\"']?(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey)[\"']?{BLANK}*[:=]{BLANK}*([\"']?)([A-Za-z0-9/+=]{{40}})(?![A-Za-z0-9/+=])\2",
    ),
)

#: vendor token shapes, then bare AWS secret access keys
VENDOR_PATTERNS: Final[tuple[SecretPatternSpec, ...]] = (
    SecretPatternSpec(
        "OPENAI_STYLE_SK_DASH",
        r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    ),
    SecretPatternSpec(
        "GITHUB_PAT_CLASSIC",
        r"(ghp_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "GITHUB_PAT_FINE_GRAINED",
        r"(github_pat_[A-Za-z0-9_]{10,})",
    ),
    SecretPatternSpec(
        "GITHUB_OAUTH_TOKEN",
        r"(gho_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "GITHUB_USER_TOKEN",
        r"(ghu_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "GITHUB_SERVER_TOKEN",
        r"(ghs_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "GITHUB_REFRESH_TOKEN",
        r"(ghr_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "GITLAB_PAT",
        r"(glpat-[A-Za-z0-9._=\-]{20,})",
    ),
    SecretPatternSpec(
        "GLOAS",
        r"(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))",
    ),
    SecretPatternSpec(
        "GLDT",
        r"(gldt-[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GLCBT",
        r"(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GLPTT",
        r"(glptt-[A-Za-z0-9_-]{40,})",
    ),
    SecretPatternSpec(
        "GLFT",
        r"(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))",
    ),
    SecretPatternSpec(
        "GLIMT",
        r"(glimt-[A-Za-z0-9_-]{25,})",
    ),
    SecretPatternSpec(
        "GLAGENT",
        r"(glagent-[A-Za-z0-9_-]{50,})",
    ),
    SecretPatternSpec(
        "GLWT",
        r"(glwt-[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GLSOAT",
        r"(glsoat-[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GLFFCT",
        r"(glffct-[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GLRT",
        r"(glrt-[A-Za-z0-9._-]{20,})",
    ),
    SecretPatternSpec(
        "GITLAB_ROUTABLE_RUNNER_TOKEN",
        r"(glrtr?-[A-Za-z0-9_-]{27,300}\.[0-9a-z]{2}\.[0-9a-z]{9})",
    ),
    SecretPatternSpec(
        "GITLAB_RUNNER_REGISTRATION_TOKEN",
        r"(GR1348941[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "GITLAB_SESSION_COOKIE",
        r"(_gitlab_session=[A-Za-z0-9%._-]{20,})",
    ),
    SecretPatternSpec(
        "SLACK_TOKEN",
        r"(xox[baprs]-[A-Za-z0-9-]{10,})",
    ),
    SecretPatternSpec(
        "XAPP",
        r"(xapp-[A-Za-z0-9-]{10,})",
    ),
    SecretPatternSpec(
        "SLACK_WEBHOOK_URL",
        r"(https://hooks\.slack\.com/(?:services/T[A-Z0-9]+/B[A-Z0-9]+|workflows/T[A-Z0-9]+/A[A-Z0-9]+/[0-9]{17,19})/[A-Za-z0-9]{20,})",
    ),
    SecretPatternSpec(
        "DISCORD_WEBHOOK_URL",
        r"(https://discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,})",
    ),
    SecretPatternSpec(
        "DISCORD_BOT_TOKEN",
        rf"discord(?:{LINE_CHAR}|\n|\r){{0,40}}?\b([A-Za-z0-9_-]{{24}}\.[A-Za-z0-9_-]{{6}}\.[A-Za-z0-9_-]{{27}})\b",
    ),
    SecretPatternSpec(
        "GROQ_KEY",
        r"(gsk_[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "GOOGLE_API_KEY",
        r"(AIza[0-9A-Za-z\-_]{20,})",
    ),
    SecretPatternSpec(
        "GOOGLE_OAUTH_TOKEN",
        r"(ya29\.[0-9A-Za-z_\-./+=]{10,})",
    ),
    SecretPatternSpec(
        "GOOGLE_REFRESH_TOKEN",
        r"(1//0[0-9A-Za-z_\-./+=]{10,})",
    ),
    SecretPatternSpec(
        "JWT",
        r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "PERPLEXITY_KEY",
        r"(pplx-[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "FAL",
        r"(fal_[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "FC",
        r"(^|[^A-Za-z0-9_])(fc-[A-Za-z0-9]{10,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "BB_LIVE",
        r"(bb_live_[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "FERNET_TOKEN",
        r"(^|[^A-Za-z0-9])(gAAAA[A-Za-z0-9_=-]{20,})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "STRIPE_LIVE_KEY",
        r"(sk_live_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "STRIPE_TEST_KEY",
        r"(sk_test_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "STRIPE_RESTRICTED_KEY",
        r"(rk_live_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "SENDGRID_KEY",
        r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "NPM_TOKEN",
        r"(npm_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "PYPI_TOKEN",
        r"(pypi-[A-Za-z0-9_-]{10,})",
    ),
    SecretPatternSpec(
        "DIGITALOCEAN_PAT",
        r"(dop_v1_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "DIGITALOCEAN_OAUTH_TOKEN",
        r"(doo_v1_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "DIGITALOCEAN_REFRESH_TOKEN",
        r"(dor_v1_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "DOPPLER_TOKEN",
        r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})",
    ),
    SecretPatternSpec(
        "DOPPLER_SERVICE_TOKEN",
        r"(dp\.st\.[A-Za-z0-9]{40,44})",
    ),
    SecretPatternSpec(
        "DOPPLER_NAMED_SERVICE_TOKEN",
        r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})",
    ),
    SecretPatternSpec(
        "DOCKER_TOKEN",
        r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    ),
    SecretPatternSpec(
        "BUILDKITE_TOKEN",
        r"(bkua_[a-z0-9]{40})",
    ),
    SecretPatternSpec(
        "CIRCLECI_PAT",
        r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    ),
    SecretPatternSpec(
        "SUPABASE_TOKEN",
        r"(sbp_[a-z0-9]{40})",
    ),
    SecretPatternSpec(
        "DATABRICKS_TOKEN",
        r"(^|[^A-Za-z0-9])(dapi[0-9a-f]{32}(?:-\d)?)",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "DDP_DDW_TOKEN",
        r"(dd[pw]_[A-Za-z0-9]{36})",
    ),
    SecretPatternSpec(
        "GRAFANA_SERVICE_ACCOUNT_TOKEN",
        r"(glsa_[A-Za-z0-9_]{41})",
    ),
    SecretPatternSpec(
        "GRAFANA_CLOUD_TOKEN",
        r"(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    ),
    SecretPatternSpec(
        "NETLIFY_PAT",
        r"(nfp_[A-Za-z0-9_]{36})",
    ),
    SecretPatternSpec(
        "CONTENTFUL_PAT",
        r"(CFPAT-[A-Za-z0-9_\-]{40,})",
    ),
    SecretPatternSpec(
        "ATLASSIAN_CONNECT_TOKEN",
        r"(^|[^A-Za-z0-9])(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "ATLASSIAN_API_TOKEN",
        r"(^|[^A-Za-z0-9])(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "BITBUCKET_APP_PASSWORD",
        r"(^|[^A-Za-z0-9])(ATBB[A-Za-z0-9_=.-]{16,})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "BITBUCKET_DC_TOKEN",
        r"(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    ),
    SecretPatternSpec(
        "HEROKU_TOKEN",
        r"(HRKU-AA[A-Za-z0-9_-]{20,})",
    ),
    SecretPatternSpec(
        "HUBSPOT_PAT",
        r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{12})",
    ),
    SecretPatternSpec(
        "APIFY_TOKEN",
        r"(apify_api_[A-Za-z0-9\-]{20,})",
    ),
    SecretPatternSpec(
        "FLY_IO_TOKEN",
        r"(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})",
    ),
    SecretPatternSpec(
        "FIO_U",
        r"(fio-u-[A-Za-z0-9_-]{40,})",
    ),
    SecretPatternSpec(
        "AM_UNDERSCORE",
        r"(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "SK_UNDERSCORE",
        r"(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "TAVILY_KEY",
        r"(tvly-[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "EXA",
        r"(exa_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "SYT",
        r"(syt_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "RETAINDB",
        r"(retaindb_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "HSK",
        r"(hsk-[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "MEM0",
        r"(mem0_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "BRV",
        r"(brv_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "XAI_KEY",
        r"(xai-[A-Za-z0-9]{30,})",
    ),
    SecretPatternSpec(
        "FIREWORKS_DASH",
        r"(^|[^A-Za-z0-9_])(fw-[A-Za-z0-9]{30,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "FIREWORKS_UNDERSCORE",
        r"(^|[^A-Za-z0-9_])(fw_[A-Za-z0-9]{30,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "FPK",
        r"(^|[^A-Za-z0-9_])(fpk_[A-Za-z0-9]{30,})",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AWS_ACCESS_KEY_ID",
        r"(^|[^A-Za-z0-9])(AKIA[A-Z0-9]{16})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "AWS_TEMPORARY_ACCESS_KEY_ID",
        r"(^|[^A-Za-z0-9])(ASIA[A-Z0-9]{16})",
        skips_base64_data=True,
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "TENCENT_SECRET_ID",
        r"(AKID[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "ALIBABA_ACCESS_KEY_ID",
        r"(LTAI[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "HUGGING_FACE_TOKEN",
        r"(hf_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "HUGGING_FACE_ORG_TOKEN",
        r"(api_org_[A-Za-z0-9]{20,})",
    ),
    SecretPatternSpec(
        "REPLICATE_TOKEN",
        r"(r8_[A-Za-z0-9]{10,})",
    ),
    SecretPatternSpec(
        "TELEGRAM_BOT_TOKEN_PREFIXED",
        r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b",
        whole_text_only=True,
    ),
    SecretPatternSpec(
        "TELEGRAM_BOT_TOKEN",
        r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b",
        whole_text_only=True,
    ),
    SecretPatternSpec("AWS_SECRET_ACCESS_KEY", None),
)
