// Small DOM and formatting helpers shared by the page's modules. Text is always inserted
// as text (never as HTML), so transcript content cannot become markup.

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

// el("div", { class: "x", onclick: fn, "data-id": "1" }, child, "text", ...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

// replace `node`'s children (null, undefined and false are left out, arrays spread)
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// a random id (crypto.randomUUID needs a secure context, and a LAN address over plain
// HTTP is not one)
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

const sameDay = (a, b) => a.toDateString() === b.toDateString();
const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short" });

// "14:05" today, "Mon 12 Jan 14:05" another day
export function when(ms) {
  const at = new Date(ms);
  return sameDay(at, new Date()) ? clock.format(at) : `${day.format(at)} ${clock.format(at)}`;
}

const count = new Intl.NumberFormat();
export const number = (value) => count.format(value);

export function seconds(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function money(total) {
  return total < 0.01 ? `$${total.toFixed(4)}` : `$${total.toFixed(2)}`;
}

// JSON for people: compact on one line, or indented
export function json(value, indent = 0) {
  try {
    return JSON.stringify(value, null, indent) ?? "";
  } catch {
    return String(value);
  }
}
