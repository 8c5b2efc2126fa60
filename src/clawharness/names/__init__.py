"""The names an operator writes, in config and on the command line, parsed and checked
with no other part of the host: so config validation, policy and the parts that act on
them agree on one reading.

    bind_specs.py     sandbox bind specs (`host:container[:options]`)
    tool_groups.py    tool ids, their aliases (`bash` is `exec`) and groups (`group:fs`)
    tool_profiles.py  the built-in tool profiles (`tools.profile`) and the core tools a
                      config key must turn on
    mcp_names.py      model-facing names of MCP servers (`<server>__<tool>`)
    model_refs.py     model refs: `provider/model`, providerless ids, legacy Codex forms
    urls.py           the store and cluster URLs this host opens
"""

from __future__ import annotations

from clawharness.names.bind_specs import SandboxBindSpec, split_sandbox_bind_spec
from clawharness.names.mcp_names import (
    SERVER_NAME_MAX_CHARS,
    assign_mcp_catalog_safe_server_names,
    sanitize_server_name,
)
from clawharness.names.model_refs import (
    LEGACY_CODEX_PROVIDERS,
    ModelRef,
    parse_model_ref,
    resolve_providerless,
)
from clawharness.names.tool_groups import (
    TOOL_GROUPS,
    TOOL_NAME_ALIASES,
    expand_tool_groups,
    normalize_tool_name,
)
from clawharness.names.tool_profiles import OFF_BY_DEFAULT, TOOL_PROFILES, absent_tool_reason
from clawharness.names.urls import (
    CLUSTER_URL_FORM,
    STORE_URL_FORMS,
    ClusterAddress,
    cluster_url_error,
    display_store_url,
    parse_cluster_url,
    store_url_error,
)

__all__ = [
    "CLUSTER_URL_FORM",
    "LEGACY_CODEX_PROVIDERS",
    "OFF_BY_DEFAULT",
    "SERVER_NAME_MAX_CHARS",
    "STORE_URL_FORMS",
    "TOOL_GROUPS",
    "TOOL_NAME_ALIASES",
    "TOOL_PROFILES",
    "ClusterAddress",
    "ModelRef",
    "SandboxBindSpec",
    "absent_tool_reason",
    "assign_mcp_catalog_safe_server_names",
    "cluster_url_error",
    "display_store_url",
    "expand_tool_groups",
    "normalize_tool_name",
    "parse_cluster_url",
    "parse_model_ref",
    "resolve_providerless",
    "sanitize_server_name",
    "split_sandbox_bind_spec",
    "store_url_error",
]
