"""Run the original implementation's recorded vectors against clawharness."""

from clawharness.conformance.runner import compare, run_case, run_lines

__all__ = ["compare", "run_case", "run_lines"]
