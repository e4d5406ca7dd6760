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
 * The binary values of an input chain, to be put back where the core's output holds
 * their text. Each text keeps its occurrences at binary keys in input order, the
 * caller's own strings among them: the same bytes may stand as a `Uint8Array`, an
 * `ArrayBuffer` and a base64 string the caller gave, and each must come back as what it
 * was. The core needs the real text (it reads image headers and file bytes from it), so
 * occurrences are told apart by order: an output's n-th occurrence of a text takes the
 * n-th, counted after the input messages the output keeps as they were (the core keeps
 * the order of what it does not drop). A text with one value takes it wherever it is.
 */
export class BinaryValues {
  /** @type {Map<string, { message: number, value: unknown }[]>} text → its occurrences */
  #texts = new Map();
  /** @type {Map<string, unknown>} text → its only value */
  #only = new Map();
  /** @type {Map<string, number>} text → its next occurrence */
  #next = new Map();
  /** The last input message the output kept as it was (-1: none yet). */
  #kept = -1;

  /**
   * @param {string} text
   * @param {unknown} value the binary value, or the caller's own string
   * @param {number} message its message's index in the input list (-1: unknown)
   */
  record(text, value, message) {
    const occurrences = this.#texts.get(text);
    if (occurrences === undefined) this.#texts.set(text, [{ message, value }]);
    else occurrences.push({ message, value });
  }

  /** Drops the texts no binary value stands as; a text with one value needs no order. */
  settle() {
    for (const [text, occurrences] of this.#texts) {
      if (occurrences.every((o) => typeof o.value === "string")) {
        this.#texts.delete(text);
      } else if (occurrences.every((o) => o.value === occurrences[0].value)) {
        this.#only.set(text, occurrences[0].value);
        this.#texts.delete(text);
      }
    }
  }

  get size() {
    return this.#texts.size + this.#only.size;
  }

  /** The output holds the input's message `index` as it was: the occurrences up to it are past. */
  keep(index) {
    this.#kept = Math.max(this.#kept, index);
  }

  /**
   * What the output's next occurrence of `text` stands for: a binary value, the caller's
   * own string, or `undefined` when `text` is no binary value's.
   * @param {string} text
   */
  take(text) {
    if (this.#only.has(text)) return this.#only.get(text);
    const occurrences = this.#texts.get(text);
    if (occurrences === undefined) return undefined;
    let next = this.#next.get(text) ?? 0;
    while (next < occurrences.length - 1 && occurrences[next].message >= 0 && occurrences[next].message <= this.#kept)
      next += 1;
    this.#next.set(text, next + 1);
    return occurrences[Math.min(next, occurrences.length - 1)].value;
  }
}

/**
 * JSON text of `messages` with binary values as base64 / href text, recorded in `found`
 * (when given) to be put back. Plain `JSON.stringify` when there is none (the usual
 * case: a replacer slows every value down).
 * @param {unknown} messages
 * @param {BinaryValues} [found]
 */
export function stringifyChain(messages, found) {
  const list = Array.isArray(messages) ? messages : Object.values(/** @type {object} */ (messages));
  if (!list.some((m) => holdsBinary(m))) return JSON.stringify(messages);
  let message = -1; // the index of the message being written, in a bare list
  const text = JSON.stringify(messages, function (key, value) {
    if (this === messages && Array.isArray(messages)) message = Number(key);
    if (!BINARY_KEYS.has(key)) return value;
    // `this[key]` is the value before `toJSON` (a URL's would already be a string).
    const binary = textOf(this[key]);
    if (binary !== undefined) found?.record(binary, this[key], message);
    else if (typeof value === "string") found?.record(value, value, message);
    return binary ?? value;
  });
  found?.settle();
  return text;
}

/**
 * `messages` as plain JSON values, for storing: each message holding binary values is
 * copied with them as base64 text and URLs as their href, forms every supported format
 * (the AI SDK's `data` / `image` among them) reads as the same content; the others are
 * the caller's own. Stored as they are, a `Uint8Array` would come back from JSON as an
 * object of indices, which the AI SDK sends as a provider file reference.
 * @template T
 * @param {T[]} messages
 * @returns {T[]}
 */
export function plainMessages(messages) {
  return messages.map((m) => (holdsBinary(m) ? JSON.parse(stringifyChain([m]))[0] : m));
}

/**
 * `value` (an output chain, or part of one: call it on the output's messages in order)
 * with every text that `found` has a binary value for replaced, in place, by the
 * caller's value. Returns `value`.
 * @template T
 * @param {T} value
 * @param {BinaryValues} found
 * @returns {T}
 */
export function restoreBinary(value, found) {
  if (found.size === 0 || value === null || typeof value !== "object") return value;
  // Depth first in key order, the order JSON.stringify wrote them in: occurrences are
  // told apart by their order.
  /** @type {[any, string][]} */
  const stack = Object.keys(value)
    .reverse()
    .map((key) => [value, key]);
  const seen = new Set();
  while (stack.length > 0) {
    const [node, key] = /** @type {[any, string]} */ (stack.pop());
    const item = node[key];
    if (typeof item === "string") {
      if (BINARY_KEYS.has(key)) {
        const original = found.take(item);
        if (original !== undefined) node[key] = original;
      }
    } else if (item !== null && typeof item === "object" && !seen.has(item)) {
      seen.add(item);
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([item, keys[i]]);
    }
  }
  return value;
}
