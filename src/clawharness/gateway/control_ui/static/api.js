// /ui/api/...: the page's reads besides the WebSocket protocol, with the gateway token in
// the Authorization header (never in a URL). Answers are the shapes of
// gateway/control_ui/schema.py.

export const TOKEN_KEY = "clawharness.gatewayToken";

export async function api(path) {
  const headers = new Headers();
  headers.set("authorization", `Bearer ${sessionStorage.getItem(TOKEN_KEY)}`);
  const response = await fetch(path, { headers });
  const body = await response.json();
  if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
  return body;
}

const part = encodeURIComponent;

export const statusPath = () => "/ui/api/status";
export const sessionsPath = () => "/ui/api/sessions";
export const searchPath = (query) => `/ui/api/search?q=${part(query)}`;
export const turnPath = (runId) => `/ui/api/turns/${part(runId)}`;
export const conversationPath = (key, runId) =>
  `/ui/api/sessions/${part(key)}/conversation${runId ? `?run=${part(runId)}` : ""}`;
