"""Errors of the native session binding library, under clawharness's one error tree.

    StoreError
    ├── InvalidRecordError               a row the namespace's codec cannot read
    │   └── UnsupportedRecordVersionError    written by a newer release
    ├── ValueTooLargeError               a value over the namespace's size limit
    └── ConditionalWriteConflict
        ├── LostLeaseError               our exact-token lease expired or was replaced
        ├── AcquisitionRejectedError     the backend refused to lease the row
        ├── DeletionChangedError         the row changed between snapshot and commit
        ├── RollbackChangedError         a deleted row could not be put back
        └── InitializationChangedError   an initialization's binding/link/owner changed
    SessionBusyError
    ├── LeaseTimeoutError                another owner held the lease for the whole wait
    └── MutationBlockedError             an exclusive native operation is pending; retry
"""

from __future__ import annotations

from clawharness.errors import ConditionalWriteConflict, SessionBusyError, StoreError

__all__ = [
    "AcquisitionRejectedError",
    "DeletionChangedError",
    "InitializationChangedError",
    "InvalidRecordError",
    "LeaseTimeoutError",
    "LostLeaseError",
    "MutationBlockedError",
    "RollbackChangedError",
    "UnsupportedRecordVersionError",
    "ValueTooLargeError",
]


class InvalidRecordError(StoreError):
    """A stored value that the namespace's codec cannot read."""

    code = "invalid_binding_row"


class UnsupportedRecordVersionError(InvalidRecordError):
    """A row written by a newer release, in a record version this one does not know."""

    code = "unsupported_binding_row_version"


class ValueTooLargeError(StoreError):
    """A value over the namespace's size limit; store a fingerprint instead."""

    code = "binding_value_too_large"


class LostLeaseError(ConditionalWriteConflict):
    """Our exact-token lease expired, was replaced or was closed; the owner stays lost."""

    code = "binding_lease_lost"

    def __init__(self, key: str, detail: str = "", *, cause: BaseException | None = None):
        suffix = f" ({detail})" if detail else ""
        if cause is not None:
            suffix += f": {cause}"
        super().__init__(f"lost the native binding lease on {key}{suffix}")
        self.key = key
        if cause is not None:
            self.__cause__ = cause


class AcquisitionRejectedError(ConditionalWriteConflict):
    """The backend's `prepare_lease` refused to lease the row (e.g. a retired generation)."""

    code = "binding_acquisition_rejected"

    def __init__(self, key: str):
        super().__init__(f"native binding lease on {key} was refused by the binding's owner")
        self.key = key


class DeletionChangedError(ConditionalWriteConflict):
    """The binding changed between the deletion's snapshot and its commit."""

    code = "binding_deletion_changed"

    def __init__(self, key: str, detail: str = "the row changed before commit"):
        super().__init__(f"native binding {key} changed during deletion: {detail}")
        self.key = key


class RollbackChangedError(ConditionalWriteConflict):
    """A committed deletion could not be undone because the key was taken meanwhile."""

    code = "binding_rollback_changed"

    def __init__(self, key: str):
        super().__init__(
            f"native binding {key} could not be restored: another writer took the key"
        )
        self.key = key


class InitializationChangedError(ConditionalWriteConflict):
    """A session initialization's binding, upstream link or owner changed under it."""

    code = "binding_initialization_changed"


class LeaseTimeoutError(SessionBusyError):
    """Another owner kept its unexpired lease for longer than we were willing to wait."""

    code = "binding_lease_timeout"

    def __init__(self, key: str, waited: float):
        super().__init__(
            f"timed out after {waited:g}s waiting for the native binding lease on {key}"
        )
        self.key = key


class MutationBlockedError(SessionBusyError):
    """A binding mutation arrived while an exclusive native operation was pending."""

    code = "binding_mutation_blocked"

    def __init__(self, operation: str = "an exclusive native operation"):
        super().__init__(
            f"native binding mutation blocked while {operation} is in progress; retry"
        )
