// The turn inspector: one turn's record (selection, timeline, tool calls, approvals,
// lease, native runtime, delivery), a TurnRecordView of gateway/control_ui/schema.py.

import { api, turnPath } from "./api.js";
import { $, el, fill, json, seconds, when } from "./dom.js";

function table(id, headers, rows) {
  return el("table", { id: id },
    el("thead", {}, el("tr", {}, headers.map((header) => el("th", {}, header)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell))))));
}

export async function showInspector(runId, title) {
  const record = await api(turnPath(runId));
  fill($("#inspector-body"),
    el("h2", {}, `${when(record.startedAt * 1000)} · ${title || "Turn"}`),
    el("p", {}, `${record.terminal} on ${record.runtime} (${record.selectedReason}), `
      + `${seconds(record.durationMs)}, finalization: ${record.finalization}`),
    el("p", { class: "muted" }, `run ${record.runId} · ${record.sessionKey}`),
    record.error ? el("p", { class: "error" }, record.error) : null,
    el("h3", {}, "Selection"),
    table("selections", ["Attempt", "Model", "Harness", "Reason", "Policy", "Candidates"],
      record.selections.map((selection) => [selection.attempt, selection.model,
        selection.selectedHarnessId, selection.selectedReason,
        `${selection.runtime} (${selection.runtimeSource})`,
        selection.candidates.map((candidate) => `${candidate.id}: `
          + `${candidate.supported === null ? "-" : candidate.supported}`
          + `${candidate.reason ? ` (${candidate.reason})` : ""}`).join("; ") || "none"])),
    el("h3", {}, "Timeline"),
    el("table", { id: "timeline" },
      el("thead", {}, el("tr", {}, ["at ms", "event", "duration ms", "details"]
        .map((header) => el("th", {}, header)))),
      el("tbody", {}, record.timeline.map((event) => el("tr", { "data-kind": event.kind },
        el("td", {}, event.atMs), el("td", {}, event.kind),
        el("td", {}, event.durationMs === null ? "" : event.durationMs),
        el("td", {}, event.data ? json(event.data) : ""))))),
    el("h3", {}, "Tool calls"),
    table("tool-calls", ["Tool", "Arguments", "Outcome", "ms"],
      record.toolCalls.map((call) => [call.name, json(call.arguments), call.outcome,
        call.durationMs === null ? "" : call.durationMs])),
    el("h3", {}, "Approvals"),
    table("approvals-table", ["Tool", "Reason", "Decision", "Waited ms"],
      record.approvals.map((approval) => [approval.tool, approval.reason, approval.decision,
        approval.waitedMs])),
    el("h3", {}, "Usage, lease, native runtime, delivery"),
    el("pre", {}, json([record.usage, record.lease, record.native, record.delivery], 2)),
  );
}
