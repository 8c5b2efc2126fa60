"""`diagnostics.otel` over the standard OTEL_* variables."""

from __future__ import annotations

import pytest

from clawharness.config.schema import DiagnosticsConfig
from clawharness.errors import ConfigError
from clawharness.observability.settings import resolve_settings


def diag(**otel: object) -> DiagnosticsConfig:
    return DiagnosticsConfig.model_validate({"otel": otel})


def test_off_by_default_and_metrics_on_when_serving_or_exporting() -> None:
    settings = resolve_settings(diag(), {})
    assert not settings.tracing and not settings.metrics and not settings.export_metrics
    assert resolve_settings(diag(), {}, serving=True).metrics
    assert resolve_settings(diag(enabled=True), {}).export_metrics
    off = DiagnosticsConfig.model_validate({"metrics": {"enabled": False}})
    assert not resolve_settings(off, {}, serving=True).metrics


def test_the_standard_variables_turn_export_on() -> None:
    settings = resolve_settings(diag(), {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/",
        "OTEL_SERVICE_NAME": "svc", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%20ecret,x=1",
        "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25",
        "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test"})
    assert settings.tracing and settings.export_metrics
    assert settings.traces_endpoint == "http://collector:4318/v1/traces"
    assert settings.metrics_endpoint == "http://collector:4318/v1/metrics"
    assert settings.service_name == "svc" and settings.sample_rate == 0.25
    assert settings.headers == {"api-key": "s ecret", "x": "1"}
    assert settings.resource_attributes == {"deployment.environment": "test"}
    assert "ecret" not in repr(settings)


def test_config_wins_over_the_environment_and_sdk_disabled_wins_over_all() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318", "OTEL_SERVICE_NAME": "env"}
    settings = resolve_settings(diag(endpoint="http://cfg:4318", serviceName="cfg",
                                     sampleRate=0.5), env)
    assert settings.traces_endpoint == "http://cfg:4318/v1/traces"
    assert settings.service_name == "cfg" and settings.sample_rate == 0.5
    assert not resolve_settings(diag(enabled=False), env).tracing
    assert not resolve_settings(diag(enabled=True), {"OTEL_SDK_DISABLED": "true"}).tracing


def test_bad_values_name_where_they_were() -> None:
    with pytest.raises(ConfigError, match="protocol"):
        resolve_settings(diag(enabled=True, protocol="grpc"), {})
    with pytest.raises(ConfigError, match="OTEL_EXPORTER_OTLP_HEADERS") as info:
        resolve_settings(diag(), {"OTEL_EXPORTER_OTLP_HEADERS": "justasecretvalue"})
    assert "justasecretvalue" not in str(info.value)
    with pytest.raises(ConfigError, match="OTEL_TRACES_SAMPLER_ARG"):
        resolve_settings(diag(), {"OTEL_TRACES_SAMPLER": "traceidratio",
                                  "OTEL_TRACES_SAMPLER_ARG": "2"})
