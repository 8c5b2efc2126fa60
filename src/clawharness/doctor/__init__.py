"""`clawharness doctor`: an application of config, apart from loading it.

Doctor reports everything `config validate` reports and adds the checks that need state
(the harnesses plugins register, the sessions' pinned runtimes); `--fix` repairs what is
safe (legacy model refs and runtimes, plaintext official endpoints) through the config
writer. See docs/status-and-doctor.md.

    diagnosis.py   diagnose, apply_fixes, write_fixed_config (pure but the write)
    store_check.py check_store: a corrupt, unreadable or unreachable store (read only)
"""

from __future__ import annotations

from clawharness.doctor.diagnosis import (
    DOCTOR_JSON_VERSION,
    Finding,
    FixWriteResult,
    apply_fixes,
    diagnose,
    findings_to_json,
    write_fixed_config,
)
from clawharness.doctor.store_check import check_store

__all__ = [
    "DOCTOR_JSON_VERSION",
    "Finding",
    "FixWriteResult",
    "apply_fixes",
    "check_store",
    "diagnose",
    "findings_to_json",
    "write_fixed_config",
]
