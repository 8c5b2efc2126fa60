"""The workflow runner a worker uses: Temporal's sandbox, without a detour per payload.

Before a worker decodes a workflow activation, and after it encodes the completion, the
SDK asks the workflow instance which serialization context (and which external-store
context) each payload belongs to, so that a payload codec or an external store can
tell, say, one activity's arguments from another's. In the sandbox each of those
questions compiles and runs a snippet inside it: profiling a worker under load put
about a tenth of its CPU there, several times per turn.

The answers feed only a payload codec and an external store. A worker whose client has
neither (the cluster's own: the default JSON converter, which the workflow uses inside
the sandbox with its own context) gets the same bytes without asking, so
`sandboxed_runner` answers "no context" for it and leaves every activation, and every
workflow's determinism checks, to the sandbox as before. A client with a codec or an
external store gets the plain sandboxed runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from temporalio.converter import DataConverter, StorageDriverStoreContext
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

if TYPE_CHECKING:
    import temporalio.workflow
    from temporalio.bridge.proto.workflow_activation import WorkflowActivation
    from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
    from temporalio.converter import SerializationContext

__all__ = ["ContextFreeRunner", "needs_payload_contexts", "sandboxed_runner"]


def needs_payload_contexts(converter: DataConverter) -> bool:
    """Whether anything the worker applies to raw payloads reads their context."""
    return converter.payload_codec is not None or converter.external_storage is not None


def sandboxed_runner(converter: DataConverter) -> WorkflowRunner:
    """The sandboxed runner for a worker whose client converts with `converter`."""
    inner = SandboxedWorkflowRunner()
    return inner if needs_payload_contexts(converter) else ContextFreeRunner(inner)


class ContextFreeRunner(WorkflowRunner):
    """Runs workflows in `inner` (a sandbox); tells the worker no payload needs a
    context. Only for a converter with no codec and no external store."""

    def __init__(self, inner: WorkflowRunner) -> None:
        self.inner = inner

    def prepare_workflow(self, defn: temporalio.workflow._Definition) -> None:
        self.inner.prepare_workflow(defn)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _ContextFreeInstance(self.inner.create_instance(det))

    def set_worker_level_failure_exception_types(
            self, types: Sequence[type[BaseException]]) -> None:
        self.inner.set_worker_level_failure_exception_types(types)


class _ContextFreeInstance(WorkflowInstance):
    def __init__(self, inner: WorkflowInstance) -> None:
        self._inner = inner

    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        return self._inner.activate(act)

    def get_serialization_context(self, command_info: object) -> SerializationContext | None:
        return None

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        return StorageDriverStoreContext(target=None)

    def get_info(self) -> temporalio.workflow.Info:
        return self._inner.get_info()

    def get_thread_id(self) -> int | None:
        return self._inner.get_thread_id()
