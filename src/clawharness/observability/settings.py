"""What telemetry a host runs with: `diagnostics.*` in config over the standard `OTEL_*`
environment variables (config wins where both say something).

Pure: reads the config node and an environment mapping, decides, and never touches the
network. Bad values are refused with the key (or variable) that held them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from clawharness.config.schema import DiagnosticsConfig
from clawharness.errors import ConfigError

__all__ = ["DEFAULT_SERVICE_NAME", "TelemetrySettings", "resolve_settings"]

DEFAULT_SERVICE_NAME = "clawharness"
_DEFAULT_ENDPOINT = "http://localhost:4318"
_TRUE = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True, slots=True)
class TelemetrySettings:
    """The resolved telemetry of one host."""

    #: spans are made and exported by OTLP
    tracing: bool = False
    #: counters and histograms are recorded (for `/metrics`, and OTLP when tracing)
    metrics: bool = False
    #: metrics are exported by OTLP as well
    export_metrics: bool = False
    traces_endpoint: str = f"{_DEFAULT_ENDPOINT}/v1/traces"
    metrics_endpoint: str = f"{_DEFAULT_ENDPOINT}/v1/metrics"
    protocol: str = "http/protobuf"
    #: export headers: credentials, so kept out of repr
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    service_name: str = DEFAULT_SERVICE_NAME
    sample_rate: float = 1.0
    capture_content: bool = False
    resource_attributes: Mapping[str, str] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.tracing or self.metrics


def _parse_pairs(text: str, variable: str) -> dict[str, str]:
    """`k1=v1,k2=v2` (values URL-encoded), as the OTEL_* header and resource variables."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            # the value may be a credential: name the variable, never the text
            raise ConfigError(f"{variable} has an entry that is not key=value",
                              key_path=variable)
        out[unquote(name.strip())] = unquote(value.strip())
    return out


def _sample_rate(env: Mapping[str, str]) -> float | None:
    sampler = env.get("OTEL_TRACES_SAMPLER", "").strip().lower()
    arg = env.get("OTEL_TRACES_SAMPLER_ARG", "").strip()
    if sampler in ("always_off", "parentbased_always_off"):
        return 0.0
    if sampler in ("always_on", "parentbased_always_on"):
        return 1.0
    if sampler in ("traceidratio", "parentbased_traceidratio") and arg:
        try:
            rate = float(arg)
        except ValueError:
            raise ConfigError(f"OTEL_TRACES_SAMPLER_ARG {arg!r} is not a number",
                              key_path="OTEL_TRACES_SAMPLER_ARG") from None
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"OTEL_TRACES_SAMPLER_ARG {arg!r} is not between 0 and 1",
                              key_path="OTEL_TRACES_SAMPLER_ARG")
        return rate
    return None


def resolve_settings(diagnostics: DiagnosticsConfig, env: Mapping[str, str], *,
                     serving: bool = False) -> TelemetrySettings:
    """The host's telemetry from `diagnostics` and `env` (the host's environment).

    `serving`: the host serves the gateway, so metrics are on unless config says no."""
    otel = diagnostics.otel
    configured = diagnostics.metrics.enabled
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() in _TRUE:
        return TelemetrySettings(tracing=False,
                                 metrics=serving if configured is None else configured)
    base = otel.endpoint or env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") if otel.endpoint is None else None
    metrics_url = env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") if otel.endpoint is None else None
    enabled = otel.enabled if otel.enabled is not None else bool(base or traces)
    root = (base or _DEFAULT_ENDPOINT).rstrip("/")
    if not root.startswith(("http://", "https://")):
        raise ConfigError(f"the OTLP endpoint must be an http(s) URL, got {root!r}",
                          key_path="diagnostics.otel.endpoint")
    protocol = otel.protocol or env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf"
    if enabled and protocol != "http/protobuf":
        raise ConfigError(
            f"OTLP protocol {protocol!r} is not supported: this host exports http/protobuf",
            key_path="diagnostics.otel.protocol",
            hint='set diagnostics.otel.protocol "http/protobuf" (port 4318 on a collector)')
    headers = dict(otel.headers) if otel.headers is not None else _parse_pairs(
        env.get("OTEL_EXPORTER_OTLP_HEADERS", ""), "OTEL_EXPORTER_OTLP_HEADERS")
    rate = otel.sample_rate if otel.sample_rate is not None else _sample_rate(env)
    metrics = (serving or enabled) if configured is None else configured
    return TelemetrySettings(
        tracing=enabled,
        metrics=metrics,
        export_metrics=enabled and otel.metrics and metrics,
        traces_endpoint=traces or f"{root}/v1/traces",
        metrics_endpoint=metrics_url or f"{root}/v1/metrics",
        protocol=protocol,
        headers=headers,
        service_name=otel.service_name or env.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE_NAME,
        sample_rate=1.0 if rate is None else rate,
        capture_content=otel.capture_content,
        resource_attributes=_parse_pairs(env.get("OTEL_RESOURCE_ATTRIBUTES", ""),
                                         "OTEL_RESOURCE_ATTRIBUTES"),
    )
