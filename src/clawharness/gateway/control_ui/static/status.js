// The Status page: the effective runtime per agent and model, the harnesses, and the
// warnings and findings `clawharness status` reports (a StatusView).

import { api, statusPath } from "./api.js";
import { $, el, fill } from "./dom.js";

function table(headers, rows) {
  return el("table", {},
    el("thead", {}, el("tr", {}, headers.map((header) => el("th", {}, header)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell))))));
}

export async function loadStatus() {
  const answer = await api(statusPath());
  const status = answer.status;
  const rows = [];
  for (const agent of status.agents) {
    for (const model of agent.models) {
      rows.push([agent.agentId, model.ref, model.runtime || "", model.reason || "",
        model.policy ? `${model.policy.runtime} (${model.policy.source})` : "",
        model.error || ""]);
    }
  }
  fill($("#status-body"),
    el("h2", {}, "Warnings and findings"),
    status.warnings.length
      ? el("ul", { id: "warnings" }, status.warnings.map((warning) => el("li", {}, warning)))
      : el("p", { id: "warnings" }, "None."),
    el("h2", {}, "Effective runtime"),
    table(["Agent", "Model", "Runtime", "Reason", "Policy", "Error"], rows),
    el("h2", {}, "Harnesses"),
    table(["Id", "Label", "Plugin"],
      status.harnesses.map((harness) => [harness.id, harness.label, harness.pluginId])),
  );
}
