"""Build a throwaway installed distribution (a `.dist-info` on sys.path) for plugin tests."""

from __future__ import annotations

import textwrap
from pathlib import Path


def make_distribution(
    site: Path,
    *,
    dist_name: str,
    plugin_id: str,
    package: str,
    module_body: str,
    init_body: str = "",
    entry_attr: str = "plugin",
) -> Path:
    """Write `package/` and `<dist>-1.0.dist-info/` (METADATA, entry_points.txt) into `site`.

    importlib.metadata discovers the distribution and its `clawharness.plugins` entry
    point exactly as it would after `pip install`, without touching the virtualenv.
    """
    pkg = site / package
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent(init_body))
    (pkg / "plugin.py").write_text(textwrap.dedent(module_body))
    info = site / f"{dist_name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[clawharness.plugins]\n{plugin_id} = {package}.plugin:{entry_attr}\n"
    )
    (info / "RECORD").write_text("")
    return site
