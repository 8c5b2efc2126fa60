"""Built-in secret-redaction patterns (ECMAScript sources and flags).

Recorded from the original logging redactor: each entry is `(source, flags)` in the
order the redactor applies them. Field patterns come first, then vendor token shapes.
Unquoted entries use the flags `gi`; entries written as `/.../g` literals keep `g`.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AMBIGUOUS_ASSIGNMENT_NAMES",
    "CHUNK_UNSAFE_NAMES",
    "FIELD_PATTERNS",
    "FORM_AWARE_NAMES",
    "SHELL_REFERENCE_NAMES",
    "VENDOR_PATTERNS",
]

#: (name, source, flags) for the field/assignment-shaped secrets
FIELD_PATTERNS: Final[tuple[tuple[str, str, str], ...]] = (
    (
        "ENV_ASSIGNMENT",
        "\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN)\\b\\s*[=:]\\s*([\"']?)([^\\s\"'\\\\]+)\\1",
        "g",
    ),
    (
        "ESCAPED_ENV_ASSIGNMENT",
        "\\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN)\\b\\s*[=:]\\s*\\\\+([\"'])([^\\s\"'\\\\]+)\\\\+\\1",
        "g",
    ),
    (
        "STRUCTURED_JSON_SECRET",
        '"(?:apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|token|secret|password|passwd|aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|credential|authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|accessToken|access_token|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret|secret_input|key_material)"\\s*:\\s*"([^"]+)"',
        "gi",
    ),
    (
        "STRUCTURED_JSON_PAYMENT",
        '"(?:cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token)"\\s*:\\s*"([^"]+)"',
        "gi",
    ),
    (
        "AMBIGUOUS_QUOTED_SECRET_FIELD",
        "(^|[\\s,{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)[\"']?\\s*[:=]\\s*([\"'])([^\"'\\r\\n]+)\\2",
        "gi",
    ),
    (
        "AMBIGUOUS_QUOTED_AUTH_FIELD",
        "(^|[\\s,{])[\"']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)[\"']?\\s*[:=]\\s*([\"'])([^\"'\\r\\n]+)\\2",
        "gi",
    ),
    (
        "CLI_SECRET_FLAG_EQUALS",
        "--(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([^\\s\"']+)",
        "gi",
    ),
    (
        "CLI_SECRET_FLAG_SPACED",
        "--(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password|passwd|credential|private[-_]?key|client[-_]?secret|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)\\s+(?!(?:or|and)\\b(?=\\s+--))([\"']?)([^\\s\"']+)\\1",
        "gi",
    ),
    (
        "AUTHORIZATION_BEARER",
        "Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t\\r\\n]*|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)Bearer(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))",
        "gi",
    ),
    (
        "AUTHORIZATION_BASIC",
        "Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t\\r\\n]*|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)Basic(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))",
        "gi",
    ),
    (
        "AUTHORIZATION_BOT",
        "Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t\\r\\n]*|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]*|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)Bot(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))",
        "gi",
    ),
    (
        "PROXY_AUTHORIZATION_SCHEME",
        "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])Proxy-Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))",
        "gi",
    ),
    (
        "PROXY_AUTHORIZATION_OPAQUE",
        "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])Proxy-Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))[ \\t]*(?=(?:\\\\{1,64}[\"']|[\"']|)(?:$|[,;)}\\]]|\\r?\\n(?![ \\t])))",
        "gi",
    ),
    (
        "AUTHORIZATION_OTHER_SCHEME",
        "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)(?!(?:Bearer|Basic|Bot)(?=(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)))[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))",
        "gi",
    ),
    (
        "AUTHORIZATION_OPAQUE",
        "(^|[^A-Za-z0-9_-]|\\\\{1,64}[rn])Authorization(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*[:=](?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)(?!(?:Bearer|Basic|Bot)(?=(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]+)))((?:\\[REDACTED\\]|[^\\s\\\\\"',;&#?<>)}\\]]+))[ \\t]*(?=(?:\\\\{1,64}[\"']|[\"']|)(?:$|[,;)}\\]]|\\r?\\n(?![ \\t])))",
        "gi",
    ),
    (
        "CREDENTIAL_STYLE_COLON_HEADER",
        "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])(?:x-goog-api-key|api-key|apikey|x-api-token|x-access-token)(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*:(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)([^\\s\\\\\"',;]+)",
        "gi",
    ),
    (
        "CREDENTIAL_STYLE_EQUALS_ASSIGNMENT",
        "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])(?:x-goog-api-key|api-key|apikey|x-api-token|x-access-token)(?:\\\\{1,64}[\"']|[\"']|)[ \\t]*=(?:[ \\t]*\\r?\\n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}r\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}n(?:[ \\t]+|\\\\{1,64}t)|[ \\t]*\\\\{1,64}t[ \\t]*|[ \\t]*)(?:\\\\{1,64}[\"']|[\"']|)([^\\s\\\\\"',;]+)",
        "gi",
    ),
    (
        "GATEWAY_SECURITY_COLON_HEADER",
        "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token)\\s*:\\s*([^\\s\"',;]+)",
        "gi",
    ),
    (
        "GATEWAY_SECURITY_EQUALS_ASSIGNMENT",
        "(^|[^A-Za-z0-9_?&-]|\\\\{1,64}[rn])(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token)\\s*=\\s*([^\\s\"',;]+)",
        "gi",
    ),
    (
        "STANDALONE_BEARER",
        "\\bBearer\\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])",
        "gi",
    ),
    (
        "URL_USERINFO_PASSWORD",
        "\\b(?:https?|wss?|ftp):\\/\\/[^\\/\\s:@]*:([^\\/\\s@]+)@",
        "gi",
    ),
    (
        "DATABASE_URL_PASSWORD",
        "\\b(?:postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|rediss?|amqps?):\\/\\/[^:\\s/@]*:([^@\\s]+)@",
        "gi",
    ),
    (
        "FORM_BODY_FIRST_PAIR",
        "(^|[\\s,;])(?:access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey|client[-_]?secret|app[-_]?secret|private[-_]?key|aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey|credential|authorization|token|key|secret|password|pass|passwd|auth|jwt|session|code|signature|x[-_]?amz[-_]?(?:signature|security[-_]?token)|app[-_]?secret|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=([^&\\s]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
        "gi",
    ),
    (
        "STANDALONE_ASSIGNMENT_QUOTED",
        '(^|[\\s,;({\\["])(?:access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=(["\'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2',
        "gi",
    ),
    (
        "STANDALONE_ASSIGNMENT",
        '(^|[\\s,;({\\["])(?:access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)=(["\'\\x60]?[^\\s&#"\'\\x60<>]+)',
        "gi",
    ),
    (
        "CONFIG_QUOTED_ASSIGNMENT",
        "(^|[\\s,{])(?:(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)(?:\\s*:\\s*|\\s+=\\s*|=\\s*)|[a-z0-9][a-z0-9._-]{0,79}[-_](?:password|passphrase|pass|passwd)\\s*[:=]\\s*|[a-z0-9_.-]{1,80}\\.(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)\\s*[:=]\\s*)([\"'\\x60])((?:(?!\\2)[^\\r\\n])+)\\2",
        "g",
    ),
    (
        "CONFIG_ASSIGNMENT",
        "(^|[\\s,{])(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)(?:\\s*:\\s*|\\s+=\\s*|=\\s+)([^\\s#\"'\\x60<>]+)",
        "g",
    ),
    (
        "CONFIG_DIRECT_ASSIGNMENT",
        "(^|[\\s,{])(?:access-token|refresh-token|id-token|auth-token|hook-token|api[-_]?(?:key|secret)|secret[-_]?key|key[-_]?material|passphrase)=([^\\s#\"'\\x60<>]+)",
        "g",
    ),
    (
        "CONFIG_PREFIXED_PASSWORD_ASSIGNMENT",
        "(^|[\\s,{])[a-z0-9][a-z0-9._-]{0,79}[-_](?:password|passphrase|pass|passwd)\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        "g",
    ),
    (
        "CONFIG_NAMESPACED_ASSIGNMENT",
        "(^|[\\s,{])[a-z0-9_.-]{1,80}\\.(?:access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|secret|password|passphrase|pass|passwd|credential|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential|shared[-_]?payment[-_]?token)\\s*[:=]\\s*([^\\s#\"'\\x60<>]+)",
        "g",
    ),
    (
        "PEM_BLOCK",
        "-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]+?-----END [A-Z ]*PRIVATE KEY-----",
        "gi",
    ),
    (
        "AWS_SECRET_ACCESS_KEY_FIELD",
        "(^|[\\s,{])[\"']?(?:aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey)[\"']?\\s*[:=]\\s*([\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\\2",
        "gi",
    ),
)

#: (source, flags) for vendor token shapes
VENDOR_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    ("\\b(sk-[A-Za-z0-9_-]{8,})\\b", "gi"),
    ("(ghp_[A-Za-z0-9]{10,})", "gi"),
    ("(github_pat_[A-Za-z0-9_]{10,})", "gi"),
    ("(gho_[A-Za-z0-9]{10,})", "gi"),
    ("(ghu_[A-Za-z0-9]{10,})", "gi"),
    ("(ghs_[A-Za-z0-9]{10,})", "gi"),
    ("(ghr_[A-Za-z0-9]{10,})", "gi"),
    ("(glpat-[A-Za-z0-9._=\\-]{20,})", "gi"),
    ("(gloas-(?:[A-Fa-f0-9]{65,}|[A-Za-z0-9_-]{64}|[A-Fa-f0-9]{32,}))", "gi"),
    ("(gldt-[A-Za-z0-9_-]{20,})", "gi"),
    ("(glcbt-[A-Za-z0-9]{1,5}_[A-Za-z0-9_-]{20,})", "gi"),
    ("(glptt-[A-Za-z0-9_-]{40,})", "gi"),
    ("(glft-(?:[A-Za-z0-9_-]{20,}|[a-h0-9]+-[0-9]+_))", "gi"),
    ("(glimt-[A-Za-z0-9_-]{25,})", "gi"),
    ("(glagent-[A-Za-z0-9_-]{50,})", "gi"),
    ("(glwt-[A-Za-z0-9_-]{20,})", "gi"),
    ("(glsoat-[A-Za-z0-9_-]{20,})", "gi"),
    ("(glffct-[A-Za-z0-9_-]{20,})", "gi"),
    ("(glrt-[A-Za-z0-9._-]{20,})", "gi"),
    ("(glrtr?-[A-Za-z0-9_-]{27,300}\\.[0-9a-z]{2}\\.[0-9a-z]{9})", "gi"),
    ("(GR1348941[A-Za-z0-9_-]{20,})", "gi"),
    ("(_gitlab_session=[A-Za-z0-9%._-]{20,})", "gi"),
    ("(xox[baprs]-[A-Za-z0-9-]{10,})", "gi"),
    ("(xapp-[A-Za-z0-9-]{10,})", "gi"),
    (
        "(https:\\/\\/hooks\\.slack\\.com\\/(?:services\\/T[A-Z0-9]+\\/B[A-Z0-9]+|workflows\\/T[A-Z0-9]+\\/A[A-Z0-9]+\\/[0-9]{17,19})\\/[A-Za-z0-9]{20,})",
        "gi",
    ),
    (
        "(https:\\/\\/discord(?:app)?\\.com\\/api\\/webhooks\\/[0-9]{17,20}\\/[A-Za-z0-9_-]{60,})",
        "gi",
    ),
    (
        "discord(?:.|\\n|\\r){0,40}?\\b([A-Za-z0-9_-]{24}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27})\\b",
        "gi",
    ),
    ("(gsk_[A-Za-z0-9_-]{10,})", "gi"),
    ("(AIza[0-9A-Za-z\\-_]{20,})", "gi"),
    ("(ya29\\.[0-9A-Za-z_\\-./+=]{10,})", "gi"),
    ("(1//0[0-9A-Za-z_\\-./+=]{10,})", "gi"),
    ("(eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})", "gi"),
    ("(pplx-[A-Za-z0-9_-]{10,})", "gi"),
    ("(fal_[A-Za-z0-9_-]{10,})", "gi"),
    ("(^|[^A-Za-z0-9_])(fc-[A-Za-z0-9]{10,})", "gi"),
    ("(bb_live_[A-Za-z0-9_-]{10,})", "gi"),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(gAAAA[A-Za-z0-9_=-]{20,})", "gi"),
    ("(sk_live_[A-Za-z0-9]{10,})", "gi"),
    ("(sk_test_[A-Za-z0-9]{10,})", "gi"),
    ("(rk_live_[A-Za-z0-9]{10,})", "gi"),
    ("(SG\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})", "gi"),
    ("(npm_[A-Za-z0-9]{10,})", "gi"),
    ("(pypi-[A-Za-z0-9_-]{10,})", "gi"),
    ("(dop_v1_[A-Za-z0-9]{10,})", "gi"),
    ("(doo_v1_[A-Za-z0-9]{10,})", "gi"),
    ("(dor_v1_[A-Za-z0-9]{10,})", "gi"),
    ("(dp\\.(?:ct|pt|sa|scim|audit)\\.[A-Za-z0-9]{40,44})", "gi"),
    ("(dp\\.st\\.[A-Za-z0-9]{40,44})", "gi"),
    ("(dp\\.st\\.[a-z0-9_-]{2,35}\\.[A-Za-z0-9]{40,44})", "gi"),
    ("(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})", "gi"),
    ("(bkua_[a-z0-9]{40})", "gi"),
    ("(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})", "gi"),
    ("(sbp_[a-z0-9]{40})", "gi"),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(dapi[0-9a-f]{32}(?:-\\d)?)", "gi"),
    ("(dd[pw]_[A-Za-z0-9]{36})", "gi"),
    ("(glsa_[A-Za-z0-9_]{41})", "gi"),
    ("(glc_eyJ[A-Za-z0-9+/=]{60,160})", "gi"),
    ("(nfp_[A-Za-z0-9_]{36})", "gi"),
    ("(CFPAT-[A-Za-z0-9_\\-]{40,})", "gi"),
    (
        "(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})",
        "gi",
    ),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{8})", "gi"),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(ATBB[A-Za-z0-9_=.-]{16,})", "gi"),
    ("(BBDC-[A-Za-z0-9+/@_-]{40,50})", "gi"),
    ("(HRKU-AA[A-Za-z0-9_-]{20,})", "gi"),
    (
        "(pat-(?:eu|na)1-[A-Za-z0-9]{8}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{4}\\-[A-Za-z0-9]{12})",
        "gi",
    ),
    ("(apify_api_[A-Za-z0-9\\-]{20,})", "gi"),
    ("(FlyV1 fm\\d+_[A-Za-z0-9+/=,_-]{100,})", "gi"),
    ("(fio-u-[A-Za-z0-9_-]{40,})", "gi"),
    ("(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})", "gi"),
    ("(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})", "gi"),
    ("(tvly-[A-Za-z0-9]{10,})", "gi"),
    ("(exa_[A-Za-z0-9]{10,})", "gi"),
    ("(syt_[A-Za-z0-9]{10,})", "gi"),
    ("(retaindb_[A-Za-z0-9]{10,})", "gi"),
    ("(hsk-[A-Za-z0-9]{10,})", "gi"),
    ("(mem0_[A-Za-z0-9]{10,})", "gi"),
    ("(brv_[A-Za-z0-9]{10,})", "gi"),
    ("(xai-[A-Za-z0-9]{30,})", "gi"),
    ("(^|[^A-Za-z0-9_])(fw-[A-Za-z0-9]{30,})", "gi"),
    ("(^|[^A-Za-z0-9_])(fw_[A-Za-z0-9]{30,})", "gi"),
    ("(^|[^A-Za-z0-9_])(fpk_[A-Za-z0-9]{30,})", "gi"),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(AKIA[A-Z0-9]{16})", "gi"),
    ("(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)(ASIA[A-Z0-9]{16})", "gi"),
    ("(AKID[A-Za-z0-9]{10,})", "gi"),
    ("(LTAI[A-Za-z0-9]{10,})", "gi"),
    ("(hf_[A-Za-z0-9]{10,})", "gi"),
    ("(api_org_[A-Za-z0-9]{20,})", "gi"),
    ("(r8_[A-Za-z0-9]{10,})", "gi"),
    ("\\bbot(\\d{6,}:[A-Za-z0-9_-]{20,})\\b", "gi"),
    ("\\b(\\d{6,}:[A-Za-z0-9_-]{20,})\\b", "gi"),
)

#: assignment shapes left out of model-visible tool output redaction
AMBIGUOUS_ASSIGNMENT_NAMES: Final = frozenset(
    {
        "ENV_ASSIGNMENT",
        "ESCAPED_ENV_ASSIGNMENT",
        "STRUCTURED_JSON_SECRET",
        "AMBIGUOUS_QUOTED_SECRET_FIELD",
        "AMBIGUOUS_QUOTED_AUTH_FIELD",
        "STANDALONE_ASSIGNMENT_QUOTED",
        "STANDALONE_ASSIGNMENT",
        "CONFIG_QUOTED_ASSIGNMENT",
        "CONFIG_ASSIGNMENT",
        "CONFIG_DIRECT_ASSIGNMENT",
        "CONFIG_PREFIXED_PASSWORD_ASSIGNMENT",
        "CONFIG_NAMESPACED_ASSIGNMENT",
    }
)
#: assignment shapes whose `$VAR` self-references are kept
SHELL_REFERENCE_NAMES: Final = frozenset(
    {
        "ENV_ASSIGNMENT",
        "ESCAPED_ENV_ASSIGNMENT",
        "STANDALONE_ASSIGNMENT_QUOTED",
        "STANDALONE_ASSIGNMENT",
    }
)
#: `=`-assignments whose value may run on into a following `&key=` pair
FORM_AWARE_NAMES: Final = frozenset(
    {"CREDENTIAL_STYLE_EQUALS_ASSIGNMENT", "GATEWAY_SECURITY_EQUALS_ASSIGNMENT"}
)
#: patterns that must see the whole text rather than bounded chunks
CHUNK_UNSAFE_NAMES: Final = frozenset(
    {
        "AUTHORIZATION_BEARER",
        "AUTHORIZATION_BASIC",
        "AUTHORIZATION_BOT",
        "PROXY_AUTHORIZATION_SCHEME",
        "PROXY_AUTHORIZATION_OPAQUE",
        "AUTHORIZATION_OTHER_SCHEME",
        "AUTHORIZATION_OPAQUE",
        "CREDENTIAL_STYLE_COLON_HEADER",
        "CREDENTIAL_STYLE_EQUALS_ASSIGNMENT",
        "STANDALONE_BEARER",
    }
)
