// Record conformance vectors from the original: node record.mjs < inputs.jsonl > outputs.jsonl
//
// Each input line is a vector without (or with an ignored) `expect`; each output line is
// the same vector with the `expect` the installed `openclaw` package gives. Values cross
// the JSON boundary in the marker format of ../data/README.md. record.sh runs it twice,
// in fresh processes with an empty config, state and home, and keeps what agrees.
import { createRequire } from "node:module";
import { resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

// where `npm install --prefix` put openclaw: $OPENCLAW_PREFIX, else the checkout's .cache
const PREFIX = process.env.OPENCLAW_PREFIX
  || resolvePath(fileURLToPath(new URL("../../../.cache/openclaw", import.meta.url)));
const requireFromPrefix = createRequire(resolvePath(PREFIX, "package.json"));
const ENTRIES = {
  "agent-harness-runtime": "openclaw/plugin-sdk/agent-harness-runtime",
  "agent-harness-tool-runtime": "openclaw/plugin-sdk/agent-harness-tool-runtime",
};
const modules = {};
for (const [name, spec] of Object.entries(ENTRIES)) {
  modules[name] = await import(pathToFileURL(requireFromPrefix.resolve(spec)).href);
}

const ENGINE_ERRORS = new Set(["TypeError", "RangeError", "ReferenceError", "SyntaxError",
  "EvalError", "URIError", "InternalError"]);

function decode(value, anchors) {
  if (Array.isArray(value)) return value.map((v) => decode(v, anchors));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 2 && "$anchor" in value && "value" in value) {
    const inner = value.value;
    // the container exists before its members, so a member may $ref its own anchor
    const made = Array.isArray(inner) ? [] : {};
    anchors.set(value.$anchor, made);
    if (Array.isArray(inner)) for (const v of inner) made.push(decode(v, anchors));
    else for (const [k, v] of Object.entries(inner)) setOwn(made, k, decode(v, anchors));
    return made;
  }
  if (keys.length === 1) {
    const [key] = keys;
    const arg = value[key];
    switch (key) {
      case "$undefined": return undefined;
      case "$ref":
        if (!anchors.has(arg)) throw new Error(`$ref to unknown anchor ${arg}`);
        return anchors.get(arg);
      case "$literal": return structuredClone(arg);
      case "$concat": return arg.join("");
      case "$map": return new Map(arg.map(([k, v]) => [decode(k, anchors), decode(v, anchors)]));
      case "$set": return new Set(arg.map((v) => decode(v, anchors)));
      case "$number": return { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 }[arg];
      case "$bigint": return BigInt(arg);
      case "$date": return new Date(arg);
      case "$regexp": return new RegExp(arg.source, arg.flags);
      case "$error": {
        const err = new Error(arg.message);
        err.name = arg.name;
        for (const [k, v] of Object.entries(arg.props ?? {})) err[k] = decode(v, anchors);
        return err;
      }
      default: break;
    }
  }
  const out = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, decode(v, anchors));
  return out;
}

function setOwn(target, key, value) {
  // "__proto__" is an ordinary own key here, as JSON.parse makes it
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function errorMarker(err, stack) {
  const out = { name: String(err.name), message: String(err.message) };
  const props = {};
  const own = [...Object.keys(err),
    ...Object.getOwnPropertyNames(err).filter((k) => !Object.keys(err).includes(k))];
  for (const k of own) {
    if (k === "stack" || k === "message" || k === "name") continue;
    setOwn(props, k, encode(err[k], stack));
  }
  if (Object.keys(props).length) out.props = props;
  return out;
}

function encode(value, stack = []) {
  if (value === undefined) return { $undefined: true };
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (Number.isNaN(value)) return { $number: "NaN" };
    if (value === Infinity) return { $number: "Infinity" };
    if (value === -Infinity) return { $number: "-Infinity" };
    if (Object.is(value, -0)) return { $number: "-0" };
    return value;
  }
  if (typeof value === "bigint") return { $bigint: String(value) };
  if (typeof value === "function") return { $function: value.name };
  if (typeof value === "symbol") return { $undefined: true };
  if (stack.includes(value)) return { $circular: true };
  const inner = [...stack, value];
  if (Array.isArray(value)) return Array.from(value, (v) => encode(v, inner));
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encode(k, inner), encode(v, inner)]) };
  if (value instanceof Set) return { $set: [...value].map((v) => encode(v, inner)) };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value instanceof RegExp) return { $regexp: { source: value.source, flags: value.flags } };
  if (value instanceof Error) return { $error: errorMarker(value, inner) };
  const out = {};
  for (const k of Object.keys(value)) setOwn(out, k, encode(value[k], inner));
  const proto = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype && proto.constructor?.name) {
    return { $class: proto.constructor.name, value: out };
  }
  return out;
}

function walk(owner, dotted) {
  let parent;
  let value = owner;
  for (const part of dotted.split(".")) {
    parent = value;
    value = value[part];
  }
  return [parent, value];
}

function resolve(fn, entry) {
  const head = fn.split(".")[0];
  const names = entry ? [entry] : Object.keys(ENTRIES);
  for (const name of names) {
    if (head in modules[name]) return walk(modules[name], fn);
  }
  throw new Error(`no export ${head} in ${names.join(", ")}`);
}

function runCase(vector) {
  const anchors = new Map();
  const [owner, target] = resolve(vector.fn, vector.entry);
  const args = decode(vector.args ?? [], anchors);
  let value;
  if (vector.new) value = new target(...args);
  else if (typeof target === "function") value = target.apply(owner, args);
  else value = target;
  for (const step of vector.then ?? []) {
    if ("get" in step) value = walk(value, step.get)[1];
    else if ("call" in step) {
      const [parent, method] = walk(value, step.call);
      value = method.apply(parent, decode(step.args ?? [], anchors));
    }
  }
  return value;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const vector = JSON.parse(line);
  const { expect: _ignored, ...input } = vector;
  let expect;
  try {
    let value = runCase(input);
    if (value instanceof Promise) value = await value;
    expect = { ok: true, result: encode(value) };
  } catch (err) {
    if (err instanceof Error && ENGINE_ERRORS.has(err.name)) {
      process.stderr.write(`dropped ${vector.id}: the engine threw ${err.name}: ${err.message}\n`);
      continue;
    }
    expect = { ok: false, error: err instanceof Error ? errorMarker(err, []) : { name: "Error", message: String(err) } };
  }
  process.stdout.write(JSON.stringify({ ...input, expect }) + "\n");
}
