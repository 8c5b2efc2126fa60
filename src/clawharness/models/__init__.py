"""Model refs and provider routes."""

from clawharness.models.refs import ModelRef, parse_model_ref

__all__ = ["ModelRef", "parse_model_ref"]
