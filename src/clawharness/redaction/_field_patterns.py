"""The field- and assignment-shaped built-in secret patterns (`FIELD_PATTERNS`): env and
config assignments, JSON fields, CLI flags, authorization and credential headers, URL
passwords, form bodies; then PEM private-key blocks. See `patterns` for the flags."""

from __future__ import annotations

from typing import Final

from clawharness.redaction._classes import BLANK, BLANK_MEMBERS
from clawharness.redaction._pattern_spec import SecretPatternSpec

__all__ = ["FIELD_PATTERNS"]


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
