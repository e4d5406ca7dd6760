// LangChain message instances (`HumanMessage`, `AIMessage`, ...) cross into wasm as their
// serialized form (`toJSON()`: `{ lc: 1, type: "constructor", id, kwargs }`), and the core
// writes the messages it makes in that form. For a caller who gave instances, those become
// instances too, of the caller's own classes (found on the instances it gave, by their
// `lc_id`): a list stays one kind of value, and every message has its methods. A class the
// caller gave no instance of cannot be had without importing @langchain/core, which only
// `contextfold/langchain` depends on: such a message stays serialized (its agent
// middleware revives every one).

/**
 * A LangChain `Serializable` message: `lc_id` is its namespace and class name, as in its
 * serialized form's `id`.
 * @param {unknown} value
 * @returns {value is { lc_id: string[], constructor: new (kwargs: unknown) => unknown }}
 */
function isInstance(value) {
  if (value === null || typeof value !== "object") return false;
  const m = /** @type {Record<string, unknown>} */ (value);
  return m.lc_serializable === true && Array.isArray(m.lc_id) && typeof m.constructor === "function";
}

/**
 * A function making a serialized LangChain message an instance of the class the caller's
 * instances of that kind have (anything else is returned as it is); `null` when `list`
 * holds no instance (nothing to do).
 * @param {unknown} list
 * @returns {((message: unknown) => unknown) | null}
 */
export function instanceReviver(list) {
  if (!Array.isArray(list)) return null;
  /** @type {Map<string, new (kwargs: unknown) => unknown>} */
  const found = new Map();
  for (const m of list) {
    if (isInstance(m)) found.set(m.lc_id.join("/"), m.constructor);
  }
  if (found.size === 0) return null;
  return (message) => {
    if (message === null || typeof message !== "object") return message;
    const m = /** @type {Record<string, unknown>} */ (message);
    if (m.lc !== 1 || m.type !== "constructor" || !Array.isArray(m.id)) return message;
    const Class = found.get(m.id.join("/"));
    return Class === undefined ? message : new Class(constructorFields(m.kwargs));
  };
}

/**
 * A message's serialized fields as its constructor takes them: `toJSON()` writes the
 * blocks of a message built with `contentBlocks` as `content_blocks`, which the
 * constructor reads only as `contentBlocks` (`load()` maps it so too).
 * @param {unknown} kwargs
 */
function constructorFields(kwargs) {
  if (kwargs === null || typeof kwargs !== "object" || !("content_blocks" in kwargs) || "content" in kwargs) {
    return kwargs;
  }
  const { content_blocks, ...rest } = /** @type {Record<string, unknown>} */ (kwargs);
  return { ...rest, contentBlocks: content_blocks };
}
