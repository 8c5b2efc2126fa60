"""`clawharness worker`: run turns for a Temporal cluster (see docs/scale-out.md)."""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING, Annotated

import typer

from clawharness.cli.common import (
    ClusterOption,
    ConfigOption,
    JsonOption,
    err_console,
    print_json,
    run_async,
)
from clawharness.errors import ConfigError
from clawharness.host import Host

if TYPE_CHECKING:
    from clawharness.worker.worker import ClusterWorker

__all__ = ["register"]

def register(app: typer.Typer) -> None:
    @app.command("worker")
    def worker(
        config: ConfigOption = None,
        cluster: ClusterOption = None,
        max_concurrent_turns: Annotated[int | None, typer.Option(
            "--max-concurrent-turns", min=1, metavar="N",
            help="Turns this worker runs at once (else cluster.maxConcurrentTurns).")] = None,
        worker_id: Annotated[str | None, typer.Option(
            "--worker-id", metavar="ID", help="This worker's name (else host-pid-random).")] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Run turns for the cluster until SIGTERM or Ctrl-C. Needs the PostgreSQL store."""

        async def go() -> None:
            from clawharness.worker.worker import ClusterWorker

            host = Host.from_config(config, in_process=True)
            url = cluster or host.config.cluster.url
            if url is None:
                raise ConfigError("no cluster to work for: pass --cluster temporal://HOST:PORT "
                                  "or set cluster.url", key_path="cluster.url")
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.add_signal_handler(signum, stop.set)
                except (NotImplementedError, RuntimeError):
                    pass

            def ready(w: ClusterWorker) -> None:
                facts = {"workerId": w.worker_id, "cluster": w.address.url,
                         "taskQueues": [w.settings.task_queue, w.own_queue],
                         "maxConcurrentTurns": w.max_concurrent_turns}
                if as_json:
                    print_json({"ready": True, **facts})
                else:
                    err_console.print(
                        f"worker {w.worker_id} ready: {w.address.url}, task queues "
                        f"{w.settings.task_queue} and {w.own_queue}, up to "
                        f"{w.max_concurrent_turns} turns at once", highlight=False)

            try:
                await ClusterWorker(host, url, worker_id=worker_id,
                                    max_concurrent_turns=max_concurrent_turns).run(
                                        on_ready=ready, stop=stop)
            finally:
                await host.close()

        run_async(go, as_json=as_json)
