"""clawharness: an agent-harness host."""

__version__ = "0.1.0"
