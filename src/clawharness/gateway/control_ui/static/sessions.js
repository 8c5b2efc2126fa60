// The Sessions page: every session in a table, with the actions on each. Extension
// points: SESSION_COLUMNS (header, cell of a SessionSummary) and SESSION_ACTIONS (label,
// what it does); add an entry for a new column or button.

import { api, sessionsPath } from "./api.js";
import { $, el, fill, when } from "./dom.js";

export const SESSION_COLUMNS = [
  ["Conversation", (session) => session.title || "(no messages yet)"],
  ["Session", (session) => el("code", {}, session.key)],
  ["Agent", (session) => session.agentId],
  ["Runtime", (session) => session.runtime || ""],
  ["Updated", (session) => when(session.updatedAt)],
];

export const SESSION_ACTIONS = [
  ["Open", "", (session, actions) => actions.openChat(session.key)],
  ["Fork", "", (session, actions) => actions.forkSession(session.key, null, true)],
  ["Reset", "", (session, actions) => actions.resetSession(session.key)],
  ["Delete", "danger", (session, actions) => actions.deleteSession(session.key)],
];

export async function loadSessionTable(actions) {
  const answer = await api(sessionsPath());
  fill($("#session-table"),
    el("thead", {}, el("tr", {}, SESSION_COLUMNS.map(([header]) => el("th", {}, header)),
      el("th", {}, ""))),
    el("tbody", {}, answer.sessions.map((session) => el("tr", { "data-key": session.key },
      SESSION_COLUMNS.map(([header, cell]) => el("td", { "data-label": header }, cell(session))),
      el("td", { class: "actions" }, SESSION_ACTIONS.map(([label, style, run]) =>
        el("button", { class: style, onclick: () => run(session, actions) }, label)))))));
  $("#session-count").textContent = `(${answer.sessions.length})`;
}
