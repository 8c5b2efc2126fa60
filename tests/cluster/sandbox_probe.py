"""A workflow that reports whether it runs in Temporal's sandbox (its own module: the
sandbox re-imports a workflow's module, which must import nothing it restricts)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    from clawharness.cluster.messages import LocalTurn, TurnRequest


@activity.defn(name="probe-echo")
async def echo(request: TurnRequest) -> LocalTurn:
    return LocalTurn(ran=True, bound_queue=f"{request.session_key}/{request.message}")


@workflow.defn(name="probe-sandbox", sandboxed=True)
class SandboxProbe:
    @workflow.run
    async def run(self, request: TurnRequest) -> list[str]:
        said: list[str] = [str(workflow.unsafe.in_sandbox())]
        try:
            __import__("datetime").datetime.now()
            said.append("clock read")
        except Exception as exc:  # the sandbox refuses a non-deterministic call
            said.append(type(exc).__name__)
        answer: LocalTurn = await workflow.execute_activity(
            echo, request, start_to_close_timeout=timedelta(seconds=30))
        said.append(f"{answer.ran}:{answer.bound_queue}")
        return said
