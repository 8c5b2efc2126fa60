"""examples/cluster-local/run.sh, as a user runs it: a Temporal dev server, two workers
and a front on one machine; a session's turns run on a worker, and when that worker is
killed the next turn runs on the other, the transcript whole in PostgreSQL."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import PG_URL, pg_unavailable

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "cluster-local" / "run.sh"

pytestmark = pytest.mark.integration


def test_the_local_cluster_example_moves_a_session_to_the_surviving_worker() -> None:
    if reason := pg_unavailable():
        pytest.fail(reason)
    proc = subprocess.run(["bash", str(SCRIPT), PG_URL], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert re.search(r"state\s+│ ready", out)
    ran = re.findall(r"Answered by a worker\.  \(ok, run by worker (w[12])\)", out)
    assert len(ran) == 4
    killed = re.search(r"worker (w[12]) is killed", out)
    assert killed is not None and killed.group(1) == ran[2]
    assert ran[3] != ran[2]  # the next turn ran on the survivor
    for n, text in enumerate(["first turn", "second turn", "third turn", "fourth turn"]):
        assert re.search(rf"{2 * n + 1}\s+user\s+{text}", out), out
