"""Serve the real model: llama.cpp's OpenAI-compatible server, through `xllamacpp`.

Run as a script, not imported: `python _serve.py SETTINGS_JSON`. It needs only the
standard library and `xllamacpp`, which live in the real-model runtime directory (its path
arrives in the settings and goes first on `sys.path`), so the project's own environment
never has to carry the 100 MB native library.

It prints one JSON line `{"listening": "http://127.0.0.1:PORT"}` on stdout once the model
is loaded and the server accepts connections (or `{"error": "..."}` and exits 1), then
serves until SIGTERM/SIGINT or until its standard input closes: the parent holds the
other end of that pipe, so the server never outlives the process that started it.
llama.cpp's own log goes to stderr.
"""

from __future__ import annotations

import importlib
import json
import signal
import sys
import threading
from typing import Any


def _configure(xlc: Any, settings: dict[str, Any]) -> Any:
    params = xlc.CommonParams()
    params.model.path = settings["model_path"]
    params.model_alias = {settings["model_id"]}
    params.hostnames = [settings["host"]]
    params.port = int(settings["port"])
    params.n_ctx = int(settings["context_window"])
    # one slot: requests queue, and the whole context window serves each one
    params.n_parallel = 1
    params.cache_prompt = bool(settings["cache_prompt"])
    params.n_predict = int(settings["max_output_tokens"])
    params.cpuparams.n_threads = int(settings["threads"])
    params.cpuparams_batch.n_threads = int(settings["threads"])
    # greedy by default, so a request without sampling parameters is repeatable too
    params.sampling.temp = 0.0
    params.sampling.top_k = 1
    params.sampling.seed = int(settings["seed"])
    params.use_jinja = True
    params.chat_template = settings["chat_template"]
    params.warmup = True
    return params


def main(argv: list[str]) -> int:
    settings = json.loads(argv[1])
    sys.path.insert(0, settings["site_dir"])
    try:
        xlc = importlib.import_module("xllamacpp")
        server = xlc.Server(_configure(xlc, settings))
    except Exception as exc:  # reported to the parent, which shows the log's tail
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
        return 1
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    def watch_stdin() -> None:
        sys.stdin.buffer.read()  # returns at EOF: the parent closed the pipe or died
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    print(json.dumps({"listening": server.listening_address}), flush=True)
    stop.wait()
    del server  # its destructor stops llama.cpp's main loop and closes the port
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
