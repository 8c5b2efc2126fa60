// The clawharness Control UI: an operator client of the gateway's WebSocket protocol
// (v4), plus /ui/api/... for what the protocol has no method for. Plain ES modules, no
// build step, no framework. The token lives in sessionStorage only; every request
// carries it in a header or in the WebSocket connect frame, never in a URL.
//
//   app.js        sign-in, pages, the actions every page can take (Actions)
//   gateway.js    the WebSocket protocol client
//   api.js        /ui/api reads
//   chat.js       the chat: sessions, search, one conversation, live events
//   render.js     a turn as DOM (TURN_FACTS, TURN_ACTIONS)
//   sessions.js   the Sessions page (SESSION_COLUMNS, SESSION_ACTIONS)
//   inspector.js  the turn inspector
//   status.js     the Status page
//   dom.js        DOM and formatting helpers
//
// Every JSON field name used here is defined once, in gateway/control_ui/schema.py and
// wire.py (tests/integration/control_ui/test_ui_names.py checks it).

import { TOKEN_KEY } from "./api.js";
import { Chat } from "./chat.js";
import { $, $$ } from "./dom.js";
import { Gateway } from "./gateway.js";
import { showInspector } from "./inspector.js";
import { loadSessionTable } from "./sessions.js";
import { loadStatus } from "./status.js";

let gateway = null;
let chat = null;
let retries = 0;

function say(text, kind = "") {
  const state = $("#conn-state");
  state.textContent = text;
  state.className = kind;
}

function report(err) {
  say(err.message, "error");
}

// what a button anywhere on the page can ask for
class Actions {
  inspect(runId, title) {
    showPage("inspector");
    showInspector(runId, title).catch(report);
  }

  resolveApproval(id, decision) {
    return chat.resolveApproval(id, decision);
  }

  openChat(key) {
    showPage("chat");
    chat.open(key).catch(report);
  }

  async resetSession(key) {
    await gateway.request("sessions.reset", { key: key });
    await loadSessionTable(this);
  }

  // a new session holding this one's transcript (through one turn, when `at` names it),
  // opened in the chat; `choose` asks for the model and runtime it goes on with
  async forkSession(key, at = null, choose = false) {
    const params = { key: key };
    if (at !== null) params.at = at;
    if (choose) {
      const model = prompt(`Fork ${key}: the model it goes on with (blank: the same)`, "");
      if (model === null) return;
      const runtime = prompt("…and the runtime (blank: as selected for that model)", "");
      if (runtime === null) return;
      if (model.trim()) params.model = model.trim();
      if (runtime.trim()) params.runtime = runtime.trim();
    }
    try {
      const answer = await gateway.request("sessions.fork", params);
      await chat.loadSessions();
      this.openChat(answer.key);
    } catch (err) {
      report(err);  // a fork refused (a runtime the model cannot run on) says why
    }
  }

  // "Fork here" on a turn of the open conversation
  forkHere(at) {
    return this.forkSession(chat.sessionKey, at);
  }

  async deleteSession(key) {
    if (!confirm(`Delete ${key} and its transcript?`)) return;
    await gateway.request("sessions.delete", { key: key });
    await loadSessionTable(this);
    await chat.loadSessions();
  }
}

const actions = new Actions();

function showPage(name) {
  for (const section of $$("main > section.page")) section.hidden = section.id !== name;
  for (const button of $$("nav button[data-page]")) {
    button.classList.toggle("active", button.getAttribute("data-page") === name);
  }
  document.body.setAttribute("data-page", name);
  if (name === "sessions") loadSessionTable(actions).catch(report);
  if (name === "status") loadStatus().catch(report);
}

async function connect(token) {
  const candidate = new Gateway(token, null);
  await candidate.connect();
  candidate.onClosed = () => reconnect(token);
  gateway = candidate;
  retries = 0;
  say("connected", "ok");
}

// the gateway went away (a restart): try again, waiting longer each time
function reconnect(token) {
  say("disconnected, reconnecting…", "error");
  retries += 1;
  setTimeout(async () => {
    try {
      await connect(token);
      chat = new Chat(gateway, actions);
      await chat.start();
    } catch {
      reconnect(token);
    }
  }, Math.min(30000, 500 * 2 ** retries));
}

async function signIn(token) {
  try {
    await connect(token);
  } catch (err) {
    sessionStorage.removeItem(TOKEN_KEY);
    $("#sign-in-error").textContent = `Sign-in failed: ${err.message}`;
    gateway = null;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("#sign-in").hidden = true;
  $("#tabs").hidden = false;
  showPage("chat");
  chat = new Chat(gateway, actions);
  await chat.start().catch(report);
}

function sendFromComposer() {
  const input = $("#chat-input");
  const text = input.value;
  if (!text.trim() || !chat) return;
  input.value = "";
  fitComposer();
  chat.send(text).catch(report);
}

// the composer grows with its text, up to a few lines
function fitComposer() {
  const input = $("#chat-input");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
}

$("#sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  $("#sign-in-error").textContent = "";
  signIn($("#token").value);
});
$("#composer").addEventListener("submit", (event) => {
  event.preventDefault();
  sendFromComposer();
});
$("#chat-input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    sendFromComposer();
  }
});
$("#chat-input").addEventListener("input", fitComposer);
$("#search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  chat.search($("#search-input").value.trim()).catch(report);
});
$("#new-chat").addEventListener("click", () => {
  chat.open(chat.newKey($("#new-chat-agent").value || undefined)).catch(report);
});
$("#sidebar-toggle").addEventListener("click", () => {
  document.body.classList.toggle("sidebar-open");
});
$("#inspector-back").addEventListener("click", () => showPage("chat"));
$("#sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  if (gateway) gateway.close();
  location.hash = "";
  location.reload();
});
for (const button of $$("nav button[data-page]")) {
  button.addEventListener("click", () => showPage(button.getAttribute("data-page")));
}
const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved);
