// The gateway's WebSocket protocol (v4) as an operator client: answers the server's
// `connect.challenge` with `connect` (the token goes in that frame, never in a URL),
// matches answers to requests by id, and hands events to listeners. Frame and payload
// shapes: gateway/control_ui/wire.py.

import { newId } from "./dom.js";

const CLIENT_VERSION = "0.2.0";

export class Gateway {
  constructor(token, onClosed) {
    this.token = token;
    this.onClosed = onClosed;
    this.pending = new Map();
    this.listeners = new Map();
    this.counter = 0;
    this.socket = null;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/`);
    return new Promise((resolve, reject) => {
      this.socket.addEventListener("message", (message) => {
        const frame = JSON.parse(message.data);
        if (frame.type === "event" && frame.event === "connect.challenge") {
          this.request("connect", this.connectRequest()).then(resolve, reject);
        } else if (frame.type === "res") {
          this.answered(frame);
        } else if (frame.type === "event") {
          for (const listener of this.listeners.get(frame.event) || []) listener(frame.payload);
        }
      });
      this.socket.addEventListener("close", () => {
        for (const waiter of this.pending.values()) waiter.reject(new Error("disconnected"));
        this.pending.clear();
        reject(new Error("the gateway closed the connection"));
        if (this.onClosed) this.onClosed();
      });
    });
  }

  connectRequest() {
    return {
      minProtocol: 4, maxProtocol: 4,
      client: { id: "openclaw-control-ui", version: CLIENT_VERSION, platform: "web",
                mode: "ui", instanceId: newId() },
      caps: ["tool-events", "plugin-approvals"], role: "operator",
      scopes: ["operator.admin", "operator.read", "operator.write", "operator.approvals"],
      auth: { token: this.token },
    };
  }

  answered(frame) {
    const waiter = this.pending.get(frame.id);
    if (!waiter) return;
    this.pending.delete(frame.id);
    if (frame.ok) waiter.resolve(frame.payload);
    else waiter.reject(new Error((frame.error && frame.error.message) || "request failed"));
  }

  request(method, params) {
    this.counter += 1;
    const id = `ui-${this.counter}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, new Waiter(resolve, reject));
      this.socket.send(JSON.stringify({ type: "req", id: id, method: method, params: params }));
    });
  }

  on(event, listener) {
    if (!this.listeners.has(event)) this.listeners.set(event, []);
    this.listeners.get(event).push(listener);
  }

  close() {
    this.onClosed = null;
    if (this.socket) this.socket.close();
  }
}

class Waiter {
  constructor(resolve, reject) {
    this.resolve = resolve;
    this.reject = reject;
  }
}
