// A conversation's turns as DOM, the same for a live turn and one reloaded from the
// transcript: both are TurnView objects (gateway/control_ui/schema.py).
//
// Extension points: TURN_FACTS are the figures in a turn's footer and TURN_ACTIONS its
// buttons; add an entry to show a new figure or offer a new action on every turn.

import { el, json, money, number, seconds, when } from "./dom.js";

function tokens(usage) {
  const parts = [];
  if (usage.input !== null) parts.push(`${number(usage.input)} in`);
  if (usage.output !== null) parts.push(`${number(usage.output)} out`);
  if (usage.cacheRead) parts.push(`${number(usage.cacheRead)} cached`);
  const total = usage.totalTokens ?? ((usage.input || 0) + (usage.output || 0));
  return parts.length ? `${number(total)} tokens (${parts.join(" · ")})` : null;
}

// [class, text of the turn, or null to leave it out]
export const TURN_FACTS = [
  ["usage", (turn) => (turn.usage ? tokens(turn.usage) : null)],
  ["cost", (turn) => (turn.usage && turn.usage.cost ? money(turn.usage.cost.total) : null)],
  ["duration", (turn) => (turn.durationMs !== null ? seconds(turn.durationMs) : null)],
  ["model", (turn) => turn.model],
  ["terminal", (turn) => (turn.terminal && turn.terminal !== "ok" ? turn.terminal : null)],
];

// [label, whether the turn offers it, what it does (turn, actions)]
export const TURN_ACTIONS = [
  ["Inspect", (turn) => Boolean(turn.runId) && turn.terminal !== null,
    (turn, actions) => actions.inspect(turn.runId, turn.title)],
  // a new session holding the conversation through this turn
  ["Fork here", (turn) => turn.userSeq !== null && turn.terminal !== null,
    (turn, actions) => actions.forkHere(`turn@${turn.userSeq}`)],
];

const STATUS_TEXT = new Map([
  ["running", "running…"], ["awaiting-approval", "waiting for approval"], ["ok", "✓ done"],
  ["error", "✗ failed"], ["unfinished", "not finished"],
]);

// one line for a call: its first text argument (exec's command, read's path), else JSON
function brief(item) {
  const args = item.arguments;
  const first = args && typeof args === "object"
    ? Object.values(args).find((value) => typeof value === "string") : undefined;
  return first !== undefined ? first : json(args);
}

export function approvalBox(approval, actions) {
  const request = approval.request;
  const buttons = [["Allow once", "allow-once"], ["Allow always", "allow-always"], ["Deny", "deny"]]
    .filter(([, decision]) => request.allowedDecisions.includes(decision))
    .map(([label, decision]) => el("button", {
      class: decision === "deny" ? "danger" : "primary",
      onclick: (event) => {
        event.currentTarget.closest(".approval").setAttribute("data-answered", decision);
        actions.resolveApproval(approval.id, decision);
      },
    }, label));
  return el("div", { class: "approval", role: "group", "data-approval-id": approval.id },
    el("strong", {}, request.title), el("div", { class: "approval-what" }, request.description),
    el("div", { class: "approval-buttons" }, buttons));
}

function toolCard(item, approvals, actions) {
  const waiting = approvals.filter((a) => a.request.toolCallId === item.toolCallId);
  const status = waiting.length && item.status === "running" ? "awaiting-approval" : item.status;
  return el("div", { class: "tool", "data-status": status, "data-tool-call-id": item.toolCallId },
    el("div", { class: "tool-head" },
      el("span", { class: "tool-name" }, item.name),
      el("code", { class: "tool-brief" }, brief(item)),
      el("span", { class: "tool-status" }, STATUS_TEXT.get(status) || status)),
    el("details", { class: "tool-args" },
      el("summary", {}, "Arguments"), el("pre", {}, json(item.arguments, 2))),
    item.result !== null ? el("div", { class: "tool-label" }, item.isError ? "Error" : "Result")
      : null,
    item.result !== null
      ? el("pre", { class: item.isError ? "tool-result error" : "tool-result" }, item.result)
      : null,
    waiting.map((approval) => approvalBox(approval, actions)));
}

export function renderTurn(turn, approvals, actions) {
  const facts = TURN_FACTS.map(([name, value]) => [name, value(turn)])
    .filter(([, text]) => text !== null && text !== undefined && text !== "")
    .map(([name, text]) => el("span", { class: `fact ${name}` }, text));
  const buttons = TURN_ACTIONS.filter(([, offered]) => offered(turn))
    .map(([label, , run]) => el("button", { class: "link", onclick: () => run(turn, actions) },
      label));
  return el("article", { class: "turn", "data-run-id": turn.runId || "",
                         "data-terminal": turn.terminal || "running" },
    el("header", { class: "turn-head" },
      el("time", { "datetime": new Date(turn.startedAt).toISOString() }, when(turn.startedAt)),
      el("span", { class: "turn-title" }, turn.title)),
    turn.userText ? el("div", { class: "bubble user", "data-seq": turn.userSeq }, turn.userText)
      : null,
    turn.items.map((item) => (item.kind === "tool"
      ? toolCard(item, approvals, actions)
      : el("div", { class: "bubble assistant", "data-seq": item.seq }, item.text))),
    turn.error ? el("div", { class: "bubble failure" }, `⚠️ ${turn.error}`) : null,
    facts.length || buttons.length ? el("footer", { class: "turn-foot" }, facts, buttons) : null);
}
