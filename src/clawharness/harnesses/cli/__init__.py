"""CLI-backend harnesses: a generic base (`backend`) and Claude Code's CLI (`claude`)."""

from __future__ import annotations
