// Binary values in a chain (the AI SDK's `Uint8Array` / `ArrayBuffer` file and image data,
// `URL` objects) cross into wasm as the JSON the core reads, base64 text and the URL's
// href, and come back as the very values the caller gave wherever they stand in the
// output (kept messages are the caller's own objects anyway; this covers rewritten ones).
// Without this, `JSON.stringify` turns a Uint8Array into an object of indices (rejected)
// and a URL into a string that the SDK then reads as base64.

/** Keys whose value may be binary data or a URL in a supported format. */
const BINARY_KEYS = new Set(["data", "image", "url"]);

/** Base64 text of bytes. */
function base64(bytes) {
  if (typeof Buffer === "function")
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The JSON text a binary value stands as, or `undefined` when `value` is not binary. */
export function textOf(value) {
  if (value instanceof Uint8Array) return base64(value);
  if (value instanceof ArrayBuffer) return base64(new Uint8Array(value));
  if (ArrayBuffer.isView(value)) return base64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  if (typeof URL === "function" && value instanceof URL) return value.href;
  return undefined;
}

/** Fields in which a format puts file or image data, or the parts that hold them. */
const HOLDING_KEYS = ["content", "parts", "data", "image", "url", "output", "value"];

/** Levels a message's holding fields are searched to at most (a cycle ends the search sooner). */
const MAX_DEPTH = 64;
/** Levels searched without recording what was seen: a message's own parts and their outputs. */
const SHALLOW = 8;

/**
 * Whether a message holds a binary value where a format puts file or image data: in its
 * parts, a tool result's output and that output's parts (an AI SDK screenshot tool's
 * `output.value[0].data.data` is seven levels down), however deep. Runs on every message
 * of every call: plain objects and arrays (nearly all it sees) skip the `instanceof`
 * tests, and only below the first levels are the values seen recorded, so that a cycle
 * or a graph sharing values ends the search.
 * @param {unknown} value
 * @param {number} [depth]
 * @param {{ seen?: Set<object> }} [deep] what was seen below the first levels
 * @returns {boolean}
 */
function holdsBinary(value, depth = 0, deep = {}) {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (depth > SHALLOW) {
    deep.seen ??= new Set();
    if (deep.seen.has(value)) return false;
    deep.seen.add(value);
  }
  if (Array.isArray(value)) {
    for (const item of value) if (holdsBinary(item, depth + 1, deep)) return true;
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && textOf(value) !== undefined) return true;
  for (const key of HOLDING_KEYS) {
    if (holdsBinary(value[key], depth + 1, deep)) return true;
  }
  return false;
}

/**
 * JSON text of `messages` with binary values as base64 / href text; `found` maps each
 * such text back to its value. Plain `JSON.stringify` when there is none (the usual case:
 * a replacer slows every value down).
 * @param {unknown} messages
 * @param {Map<string, unknown>} found
 */
export function stringifyChain(messages, found) {
  const list = Array.isArray(messages) ? messages : Object.values(/** @type {object} */ (messages));
  if (!list.some((m) => holdsBinary(m))) return JSON.stringify(messages);
  return JSON.stringify(messages, function (key, value) {
    // `this[key]` is the value before `toJSON` (a URL's would already be a string).
    const text = BINARY_KEYS.has(key) ? textOf(this[key]) : undefined;
    if (text === undefined) return value;
    found.set(text, this[key]);
    return text;
  });
}

/**
 * `value` (an output chain, or part of one) with every text `found` maps back replaced,
 * in place, by the caller's binary value. Returns `value`.
 * @template T
 * @param {T} value
 * @param {Map<string, unknown>} found
 * @returns {T}
 */
export function restoreBinary(value, found) {
  if (found.size === 0 || value === null || typeof value !== "object") return value;
  const stack = [value];
  const seen = new Set();
  while (stack.length > 0) {
    const node = /** @type {any} */ (stack.pop());
    if (seen.has(node)) continue;
    seen.add(node);
    for (const [key, item] of Object.entries(node)) {
      if (typeof item === "string") {
        if (BINARY_KEYS.has(key) && found.has(item)) node[key] = found.get(item);
      } else if (item !== null && typeof item === "object" && textOf(item) === undefined) {
        stack.push(item);
      }
    }
  }
  return value;
}
