// The clawharness Control UI: an operator client of the gateway's WebSocket protocol (v4),
// plus /ui/api/... for search, status and the turn inspector. No build step, no framework.
// The token lives in sessionStorage only; every request carries it in a header or in the
// WebSocket connect frame, never in a URL.

const TOKEN_KEY = "clawharness.gatewayToken";
const $ = (selector) => document.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function textOf(message) {
  const content = message && message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((p) => p && typeof p.text === "string").map((p) => p.text).join("\n");
}

class Gateway {
  constructor(token) {
    this.token = token;
    this.pending = new Map();
    this.listeners = new Map();
    this.seq = 0;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.ws = new WebSocket(`${scheme}://${location.host}/`);
    return new Promise((resolve, reject) => {
      this.ws.addEventListener("message", (msg) => {
        const frame = JSON.parse(msg.data);
        if (frame.type === "event" && frame.event === "connect.challenge") {
          this.send("connect", {
            minProtocol: 4, maxProtocol: 4,
            client: { id: "openclaw-control-ui", version: "0.1.0", platform: "web",
                      mode: "ui", instanceId: crypto.randomUUID() },
            caps: ["tool-events", "plugin-approvals"], role: "operator",
            scopes: ["operator.admin", "operator.read", "operator.write",
                     "operator.approvals"],
            auth: { token: this.token },
          }).then(resolve, reject);
          return;
        }
        if (frame.type === "res") {
          const waiter = this.pending.get(frame.id);
          if (!waiter) return;
          this.pending.delete(frame.id);
          if (frame.ok) waiter.resolve(frame.payload);
          else waiter.reject(new Error((frame.error && frame.error.message) || "request failed"));
        } else if (frame.type === "event") {
          for (const fn of this.listeners.get(frame.event) || []) fn(frame.payload);
        }
      });
      this.ws.addEventListener("close", () => {
        $("#conn-state").textContent = "disconnected";
        for (const waiter of this.pending.values()) waiter.reject(new Error("disconnected"));
        this.pending.clear();
        reject(new Error("the gateway closed the connection"));
      });
    });
  }

  send(method, params) {
    const id = `ui-${++this.seq}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  on(event, fn) {
    if (!this.listeners.has(event)) this.listeners.set(event, []);
    this.listeners.get(event).push(fn);
  }
}

async function api(path) {
  const response = await fetch(path, {
    headers: { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY)}` },
  });
  const body = await response.json();
  if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
  return body;
}

let gateway = null;

// --- sign-in -------------------------------------------------------------------------

async function signIn(token) {
  const candidate = new Gateway(token);
  try {
    await candidate.connect();
  } catch (err) {
    sessionStorage.removeItem(TOKEN_KEY);
    $("#sign-in-error").textContent = `Sign-in failed: ${err.message}`;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  gateway = candidate;
  $("#conn-state").textContent = "connected";
  $("#sign-in").hidden = true;
  $("#tabs").hidden = false;
  wireEvents();
  showTab("chat");
}

function showTab(name) {
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== name;
  for (const button of document.querySelectorAll("nav button[data-tab]")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  if (name === "sessions") loadSessions();
  if (name === "status") loadStatus();
}

// --- chat ----------------------------------------------------------------------------

const runs = new Map();

function bubble(role, text) {
  const node = el("div", { class: `msg ${role}` }, text);
  $("#messages").append(node);
  $("#messages").scrollTop = $("#messages").scrollHeight;
  return node;
}

function wireEvents() {
  gateway.on("chat", (payload) => {
    let node = runs.get(payload.runId);
    if (!node) {
      node = bubble("assistant", "");
      node.dataset.runId = payload.runId;
      runs.set(payload.runId, node);
    }
    if (payload.message) node.textContent = textOf(payload.message);
    if (payload.state === "delta") node.dataset.deltas = String(Number(node.dataset.deltas || 0) + 1);
    if (payload.state === "final") node.dataset.state = "final";
    if (payload.state === "error") {
      node.dataset.state = "error";
      node.textContent += `\n⚠️ ${payload.errorMessage || "failed"}`;
    }
  });
  gateway.on("agent", (payload) => {
    if (payload.stream !== "tool") return;
    const data = payload.data || {};
    if (data.phase === "start") {
      bubble("tool", `→ ${data.name} ${JSON.stringify(data.args || {})}`);
    } else if (data.phase === "result") {
      bubble("tool", `← ${data.name} ${data.isError ? "failed" : "ok"}`);
    }
  });
  gateway.on("plugin.approval.requested", (payload) => {
    const request = payload.request || {};
    const box = el("div", { class: "approval", "data-approval-id": payload.id },
      el("strong", {}, request.title || "Approval"), el("div", {}, request.description || ""));
    for (const [label, decision] of [["Allow once", "allow-once"], ["Deny", "deny"]]) {
      box.append(el("button", {
        onclick: async () => {
          await gateway.send("plugin.approval.resolve", { id: payload.id, decision });
          box.remove();
        },
      }, label));
    }
    $("#approvals").append(box);
  });
  gateway.on("plugin.approval.resolved", (payload) => {
    const box = document.querySelector(`[data-approval-id="${CSS.escape(payload.id)}"]`);
    if (box) box.remove();
  });
}

async function sendMessage(event) {
  event.preventDefault();
  const input = $("#chat-input");
  const message = input.value.trim();
  if (!message) return;
  input.value = "";
  bubble("user", message);
  try {
    await gateway.send("chat.send", { sessionKey: $("#chat-session").value.trim(), message,
                                      idempotencyKey: crypto.randomUUID() });
  } catch (err) {
    bubble("tool", `⚠️ ${err.message}`);
  }
}

// --- sessions ------------------------------------------------------------------------

let openKey = null;

async function loadSessions() {
  const payload = await gateway.send("sessions.list", {});
  const body = $("#session-table tbody");
  body.replaceChildren();
  for (const row of payload.sessions) {
    body.append(el("tr", { "data-key": row.key },
      el("td", {}, row.key), el("td", {}, row.agentId),
      el("td", {}, (row.agentRuntime && row.agentRuntime.id) || ""),
      el("td", {}, new Date(row.updatedAt).toLocaleString()),
      el("td", {}, el("button", { onclick: () => openSession(row.key) }, "Open"))));
  }
}

async function openSession(key) {
  openKey = key;
  $("#inspector").hidden = true;
  $("#session-detail").hidden = false;
  $("#session-title").textContent = key;
  const history = await gateway.send("chat.history", { sessionKey: key });
  const list = $("#session-history");
  list.replaceChildren();
  for (const message of history.messages) {
    const role = message.role === "toolResult" ? "tool" : message.role;
    list.append(el("div", { class: `msg ${role}` }, `${message.role}: ${textOf(message)}`));
  }
  const turns = await api(`/ui/api/sessions/${encodeURIComponent(key)}/turns`);
  const body = $("#turn-table tbody");
  body.replaceChildren();
  for (const turn of turns.turns) {
    body.append(el("tr", { "data-run-id": turn.run_id },
      el("td", {}, turn.run_id), el("td", {}, turn.terminal), el("td", {}, turn.runtime),
      el("td", {}, turn.tool_calls), el("td", {}, Math.round(turn.duration_ms)),
      el("td", {}, el("button", { onclick: () => inspect(turn.run_id) }, "Inspect"))));
  }
}

function table(headers, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c))))));
}

async function inspect(runId) {
  const record = await api(`/ui/api/turns/${encodeURIComponent(runId)}`);
  const view = $("#inspector");
  view.replaceChildren(
    el("h2", {}, `Turn ${record.run_id}`),
    el("p", {}, `${record.terminal} on ${record.runtime} (${record.selected_reason}), `
      + `${Math.round(record.duration_ms)} ms, finalization: ${record.finalization}`),
    el("h3", {}, "Selection"),
    table(["Attempt", "Model", "Harness", "Reason", "Policy", "Candidates"],
      record.selections.map((s) => [s.attempt, s.model, s.selected_harness_id, s.selected_reason,
        `${s.runtime} (${s.runtime_source})`,
        s.candidates.map((c) => `${c.id}: ${c.supported === null ? "-" : c.supported}`
          + `${c.reason ? ` (${c.reason})` : ""}`).join("; ") || "none"])),
    el("h3", {}, "Timeline"),
    el("table", { id: "timeline" },
      el("thead", {}, el("tr", {}, el("th", {}, "at ms"), el("th", {}, "event"),
        el("th", {}, "duration ms"), el("th", {}, "details"))),
      el("tbody", {}, ...record.timeline.map((e) => el("tr", { "data-kind": e.kind },
        el("td", {}, e.at_ms), el("td", {}, e.kind),
        el("td", {}, e.duration_ms === undefined ? "" : e.duration_ms),
        el("td", {}, e.data ? JSON.stringify(e.data) : ""))))),
    el("h3", {}, "Tool calls"),
    table(["Tool", "Arguments", "Outcome", "ms"],
      record.tool_calls.map((t) => [t.name, JSON.stringify(t.arguments), t.outcome,
        t.duration_ms === null ? "" : t.duration_ms])),
    el("h3", {}, "Approvals"),
    table(["Tool", "Reason", "Decision", "Waited ms"],
      record.approvals.map((a) => [a.tool, a.reason, a.decision, a.waited_ms])),
    el("h3", {}, "Lease, native runtime, delivery"),
    el("pre", {}, JSON.stringify({ lease: record.lease, native: record.native,
                                   delivery: record.delivery }, null, 2)),
  );
  view.hidden = false;
}

async function resetSession() {
  if (!openKey) return;
  await gateway.send("sessions.reset", { key: openKey });
  await openSession(openKey);
}

async function deleteSession() {
  if (!openKey || !confirm(`Delete ${openKey} and its transcript?`)) return;
  await gateway.send("sessions.delete", { key: openKey });
  openKey = null;
  $("#session-detail").hidden = true;
  await loadSessions();
}

async function search(event) {
  event.preventDefault();
  const q = $("#search-input").value.trim();
  const out = $("#search-results");
  out.replaceChildren();
  if (!q) return;
  try {
    const result = await api(`/ui/api/search?q=${encodeURIComponent(q)}`);
    if (!result.hits.length) out.append(el("p", {}, "No matches."));
    for (const hit of result.hits) {
      out.append(el("div", { class: "hit" },
        el("button", { onclick: () => openSession(hit.session_key) }, hit.session_key),
        ` ${hit.role}: ${hit.text}`));
    }
  } catch (err) {
    out.append(el("p", { class: "error" }, err.message));
  }
}

// --- status --------------------------------------------------------------------------

async function loadStatus() {
  const { status } = await api("/ui/api/status");
  const rows = [];
  for (const agent of status.agents || []) {
    for (const model of agent.models || []) {
      rows.push([agent.agentId, model.ref, model.runtime || "", model.reason || "",
        model.policy ? `${model.policy.runtime} (${model.policy.source})` : "",
        model.error || ""]);
    }
  }
  $("#status-body").replaceChildren(
    el("h2", {}, "Effective runtime"),
    table(["Agent", "Model", "Runtime", "Reason", "Policy", "Error"], rows),
    el("h2", {}, "Harnesses"),
    table(["Id", "Label", "Plugin"],
      (status.harnesses || []).map((h) => [h.id, h.label, h.pluginId])),
    el("h2", {}, "Warnings and findings"),
    (status.warnings || []).length
      ? el("ul", { id: "warnings" }, ...status.warnings.map((w) => el("li", {}, w)))
      : el("p", { id: "warnings" }, "None."),
  );
}

// --- start ---------------------------------------------------------------------------

$("#sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  $("#sign-in-error").textContent = "";
  signIn($("#token").value);
});
$("#chat-form").addEventListener("submit", sendMessage);
$("#search-form").addEventListener("submit", search);
$("#session-reset").addEventListener("click", resetSession);
$("#session-delete").addEventListener("click", deleteSession);
$("#sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
});
for (const button of document.querySelectorAll("nav button[data-tab]")) {
  button.addEventListener("click", () => showTab(button.dataset.tab));
}
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved);
