// The chat: a session list with full-text search beside one conversation, a composer
// (Enter sends, Shift+Enter starts a new line), replies streamed as they are written,
// tool calls as cards with their status and result, approvals answered inline.
//
// A conversation is a list of TurnView objects (gateway/control_ui/schema.py): loaded
// from /ui/api when a session opens (so it survives a reload), grown live from the
// gateway's events while a turn runs, and replaced by the stored turn when it ends.

import { api, conversationPath, searchPath, sessionsPath } from "./api.js";
import { $, $$, el, fill, newId, when } from "./dom.js";
import { approvalBox, renderTurn } from "./render.js";

const TITLE_WORDS = 8;
const TITLE_CHARS = 60;
const SPACES = new RegExp("\\s+");

// the first words of a message (the server names stored turns the same way)
function firstWords(text) {
  const words = text.split(SPACES).filter(Boolean);
  let title = words.slice(0, TITLE_WORDS).join(" ");
  let cut = words.length > TITLE_WORDS;
  if (title.length > TITLE_CHARS) {
    title = title.slice(0, TITLE_CHARS - 1).trimEnd();
    cut = true;
  }
  return cut ? `${title}…` : title;
}

function messageText(message) {
  if (!message) return "";
  if (typeof message.content === "string") return message.content;
  return (message.content || []).filter((part) => part.type === "text")
    .map((part) => part.text).join("");
}

// where a turn's streamed text goes: the text item being written, and where in the
// reply so far it begins (text after a tool call starts a new item)
class LiveText {
  constructor() {
    this.item = null;
    this.base = 0;
    this.full = "";
    this.closed = true;
  }
}

export class Chat {
  constructor(gateway, actions) {
    this.gateway = gateway;
    this.actions = actions;
    this.sessionKey = null;
    this.defaultAgentId = "main";
    this.turns = [];
    this.approvals = new Map();
    this.live = new Map();
    this.listed = [];
    this.searching = false;
  }

  // --- start ------------------------------------------------------------------------

  async start() {
    const gateway = this.gateway;
    gateway.on("chat", (payload) => this.onChat(payload));
    gateway.on("agent", (payload) => this.onAgent(payload));
    gateway.on("plugin.approval.requested", (payload) => this.onApproval(payload));
    gateway.on("plugin.approval.resolved", (payload) => this.onApprovalResolved(payload));
    gateway.on("sessions.changed", () => this.loadSessions().catch(() => {}));
    await gateway.request("sessions.subscribe", {});
    for (const approval of await gateway.request("plugin.approval.list", {})) {
      this.approvals.set(approval.id, approval);
    }
    await this.loadSessions();
    const fromHash = new URLSearchParams(location.hash.slice(1)).get("session");
    const latest = this.listed.length ? this.listed[0].key : null;
    await this.open(fromHash || latest || this.newKey());
  }

  newKey(agentId = this.defaultAgentId) {
    const now = new Date();
    const pad = (value) => String(value).padStart(2, "0");
    const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`
      + `-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
    return `agent:${agentId}:ui-${stamp}`;
  }

  // --- sessions and search ----------------------------------------------------------

  async loadSessions() {
    const answer = await api(sessionsPath());
    this.listed = answer.sessions;
    this.defaultAgentId = answer.defaultAgentId;
    const picker = $("#new-chat-agent");
    fill(picker, answer.agentIds.map((agentId) => el("option", {
      value: agentId, selected: agentId === picker.value || (!picker.value && agentId === answer.defaultAgentId),
    }, agentId)));
    picker.hidden = answer.agentIds.length < 2;
    this.showSessions();
  }

  showSessions() {
    const list = $("#session-list");
    fill(list, this.listed.map((session) => el("li", {},
      el("button", {
        class: session.key === this.sessionKey ? "session current" : "session",
        "data-key": session.key, onclick: () => this.open(session.key),
      },
      el("span", { class: "session-title" }, session.title || session.key),
      el("span", { class: "session-meta" },
        session.hasActiveRun ? el("span", { class: "dot", title: "running" }) : null,
        `${session.agentId} · ${when(session.updatedAt)}`)))));
    if (!this.listed.length) list.append(el("li", { class: "muted" }, "No conversations yet."));
  }

  async search(query) {
    const out = $("#search-results");
    if (!query) {
      this.clearSearch();
      return;
    }
    const answer = await api(searchPath(query));
    fill(out,
      el("div", { class: "search-head" }, `${answer.hits.length} found`,
        el("button", { class: "link", onclick: () => this.clearSearch() }, "Clear")),
      answer.hits.map((hit) => el("button", {
        class: "hit", "data-key": hit.sessionKey,
        onclick: () => this.open(hit.sessionKey, hit.seq),
      },
      el("span", { class: "hit-text" }, hit.text.length > 160 ? `${hit.text.slice(0, 159)}…` : hit.text),
      el("span", { class: "session-meta" }, `${hit.role} · ${hit.sessionKey}`))));
    out.hidden = false;
    $("#session-list").hidden = true;
  }

  clearSearch() {
    $("#search-input").value = "";
    $("#search-results").hidden = true;
    $("#session-list").hidden = false;
  }

  // --- one conversation -------------------------------------------------------------

  async open(key, seq = null) {
    this.sessionKey = key;
    this.live.clear();
    history.replaceState(null, "", `#session=${encodeURIComponent(key)}`);
    $("#conversation-key").textContent = key;
    const listed = this.listed.find((session) => session.key === key);
    $("#conversation-title").textContent = (listed && listed.title) || "New conversation";
    this.showSessions();
    document.body.classList.remove("sidebar-open");
    const view = await api(conversationPath(key));
    if (this.sessionKey !== key) return;
    this.turns = view.turns;
    this.renderAll();
    if (seq !== null) this.reveal(seq);
    else this.scrollToEnd();
    $("#chat-input").focus();
  }

  reveal(seq) {
    const marked = $$("[data-seq]", $("#conversation"))
      .filter((node) => Number(node.getAttribute("data-seq")) <= seq);
    const target = marked[marked.length - 1];
    if (!target) return;
    target.classList.add("found");
    const pane = $("#conversation");
    pane.scrollTop = target.offsetTop - pane.clientHeight / 3;
  }

  scrollToEnd() {
    const pane = $("#conversation");
    pane.scrollTop = pane.scrollHeight;
  }

  approvalsList() {
    return Array.from(this.approvals.values());
  }

  renderAll() {
    const approvals = this.approvalsList();
    const pane = $("#conversation");
    fill(pane, this.turns.map((turn) => renderTurn(turn, approvals, this.actions)));
    if (!this.turns.length) {
      pane.append(el("p", { class: "empty" }, "Say something to start the conversation."));
    }
    this.renderStrayApprovals();
  }

  renderTurnOf(turn) {
    const pane = $("#conversation");
    const follow = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
    const node = renderTurn(turn, this.approvalsList(), this.actions);
    const old = $$("article.turn", pane).find((article) =>
      article.getAttribute("data-run-id") === (turn.runId || ""));
    if (old) old.replaceWith(node);
    else {
      const empty = $(".empty", pane);
      if (empty) empty.remove();
      pane.append(node);
    }
    this.renderStrayApprovals();
    if (follow) this.scrollToEnd();
  }

  // approvals whose tool call is not on screen (another session's turn)
  renderStrayApprovals() {
    const shown = new Set($$("#conversation [data-approval-id]")
      .map((node) => node.getAttribute("data-approval-id")));
    const stray = this.approvalsList().filter((approval) => !shown.has(approval.id));
    fill($("#pending-approvals"), stray.map((approval) => el("div", {},
      el("div", { class: "muted" }, `In ${approval.request.sessionKey || "another session"}`),
      approvalBox(approval, this.actions))));
  }

  turnOf(runId, sessionKey) {
    const known = this.turns.find((turn) => turn.runId === runId);
    if (known || sessionKey !== this.sessionKey) return known || null;
    const turn = {
      runId: runId, startedAt: Date.now(), title: "", userText: "", userSeq: null, items: [],
      usage: null, durationMs: null, terminal: null, runtime: null, model: null, error: null,
    };
    this.turns.push(turn);
    return turn;
  }

  // --- sending ----------------------------------------------------------------------

  async send(text) {
    const message = text.trim();
    if (!message || !this.sessionKey) return;
    const idempotencyKey = newId();
    const turn = this.turnOf(idempotencyKey, this.sessionKey);
    turn.title = firstWords(message);
    turn.userText = message;
    this.renderTurnOf(turn);
    this.scrollToEnd();
    try {
      const answer = await this.gateway.request("chat.send", {
        sessionKey: this.sessionKey, message: message, idempotencyKey: idempotencyKey,
      });
      if (answer.runId !== turn.runId) {
        const old = turn.runId;
        turn.runId = answer.runId;
        const node = $$("article.turn").find((article) => article.getAttribute("data-run-id") === old);
        if (node) node.setAttribute("data-run-id", turn.runId);
      }
    } catch (err) {
      turn.error = err.message;
      turn.terminal = "failed";
      this.renderTurnOf(turn);
    }
  }

  // --- live events ------------------------------------------------------------------

  onChat(payload) {
    const turn = this.turnOf(payload.runId, payload.sessionKey);
    if (!turn) return;
    if (payload.state === "delta") {
      this.streamText(turn, messageText(payload.message), Boolean(payload.replace));
    } else {
      if (payload.state === "error") turn.error = payload.errorMessage || "the turn failed";
      turn.terminal = payload.state === "final" ? "ok"
        : payload.state === "error" ? "failed" : "aborted";
      this.renderTurnOf(turn);
      this.settled(turn);
    }
  }

  streamText(turn, text, replace) {
    if (!this.live.has(turn.runId)) this.live.set(turn.runId, new LiveText());
    const live = this.live.get(turn.runId);
    if (replace) live.base = 0;
    live.full = text;
    const segment = text.slice(live.base);
    if (live.closed || !live.item) {
      if (!segment) return;
      live.item = { kind: "text", text: segment, seq: null };
      live.closed = false;
      turn.items.push(live.item);
    } else {
      live.item.text = segment;
    }
    this.renderTurnOf(turn);
  }

  onAgent(payload) {
    if (payload.stream !== "tool" && payload.stream !== "lifecycle") return;
    const turn = this.turnOf(payload.runId, payload.sessionKey);
    if (!turn || payload.stream !== "tool") return;
    const data = payload.data;
    const live = this.live.get(turn.runId);
    let item = turn.items.find((candidate) => candidate.kind === "tool"
      && candidate.toolCallId === data.toolCallId);
    if (data.phase === "start") {
      if (live) {
        live.closed = true;
        live.base = live.full.length;
      }
      if (!item) {
        item = { kind: "tool", toolCallId: data.toolCallId, name: data.name,
                 arguments: data.args, status: "running", result: null, isError: false,
                 seq: null };
        turn.items.push(item);
      }
    } else if (!item) {
      return;
    } else if (data.phase === "permission" && data.allowed === false) {
      item.status = "error";
      item.isError = true;
      item.result = data.reason || "refused";
    } else if (data.phase === "result") {
      item.status = data.isError ? "error" : "ok";
      item.isError = Boolean(data.isError);
      item.result = data.preview || null;
    }
    this.renderTurnOf(turn);
  }

  // the turn ended: show it as stored (whole tool results, usage, duration)
  async settled(turn) {
    this.live.delete(turn.runId);
    const key = this.sessionKey;
    try {
      const view = await api(conversationPath(key, turn.runId));
      const stored = view.turns.find((candidate) => candidate.runId === turn.runId);
      if (stored && this.sessionKey === key) {
        if (!stored.error && turn.error) stored.error = turn.error;
        this.turns[this.turns.indexOf(turn)] = stored;
        this.renderTurnOf(stored);
      }
    } finally {
      await this.loadSessions();
      if (this.sessionKey === key) {
        const listed = this.listed.find((session) => session.key === key);
        if (listed && listed.title) $("#conversation-title").textContent = listed.title;
      }
    }
  }

  // --- approvals --------------------------------------------------------------------

  onApproval(payload) {
    this.approvals.set(payload.id, payload);
    const turn = this.turns.find((candidate) => candidate.runId === payload.request.runId);
    if (turn) this.renderTurnOf(turn);
    else this.renderStrayApprovals();
  }

  onApprovalResolved(payload) {
    const approval = this.approvals.get(payload.id);
    this.approvals.delete(payload.id);
    const turn = approval && this.turns.find((candidate) => candidate.runId === approval.request.runId);
    if (turn) this.renderTurnOf(turn);
    else this.renderStrayApprovals();
  }

  async resolveApproval(id, decision) {
    try {
      await this.gateway.request("plugin.approval.resolve", { id: id, decision: decision });
      this.onApprovalResolved({ id: id, decision: decision });
    } catch (err) {
      const box = $$("[data-approval-id]").find((node) => node.getAttribute("data-approval-id") === id);
      if (box) box.append(el("p", { class: "error" }, err.message));
    }
  }
}
