// History: a conversation session for chat UIs. Messages are pushed as they happen;
// with `auto` on (the default), every push checks the strategy's cheap trigger
// (`needsCompaction`) and compacts when it fires. `compact()` compacts on demand.
//
// A compaction works on a snapshot: messages pushed while it runs are kept and appended
// after the compacted chain, so nothing is lost. A failed or rolled-back compaction
// leaves the history exactly as it was. `toJSON()` / `History.fromJSON()` store and
// restore it (localStorage, IndexedDB, Workers KV: anything that holds JSON).
import { compact, copyOptions, measureChain, needsCompaction, parseChain } from "./api.js";
import { plainMessages, stringifyChain } from "./binary.js";
import { contextfoldError } from "./errors.js";
import { __Session } from "./glue.js";
import { check, checkOptions, is } from "./options.js";
import { assertReady } from "./ready.js";

/** @type {1} */
const VERSION = 1;

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * What `new History()` takes: its keys once, checked against the declaration.
 * @type {import("./options.js").Spec<NonNullable<ConstructorParameters<typeof import("./index.js").History>[0]>>}
 */
const INIT_OPTIONS = {
  messages: check(Array.isArray, "an array of messages"),
  auto: check((v) => typeof v === "boolean", "true or false"),
  options: is.object,
};

/** @template [M=unknown] */
export class History {
  /** @type {M[]} */
  #messages;
  /** @type {import("./index.js").CompactOptions} */
  #options;
  /** @type {boolean} */
  #auto;
  /** @type {Promise<import("./index.js").CompactResult<M[]>> | null} */
  #running = null;
  /**
   * The conversation as held in wasm (read messages, each one's cost, the total): what the
   * trigger reads, so that a push costs in proportion to its message. `null` until the
   * first push, after a compaction, and after a message it could not read (then the
   * stateless `needsCompaction` answers, with its errors).
   * @type {import("./glue.js").Session | null}
   */
  #session = null;

  /** Whether a message was pushed while a compaction ran (its trigger is read again). */
  #pushedWhileRunning = false;

  /**
   * The last message pushed and its text as the session read it. A chat UI pushes the
   * assistant's message as its stream starts and fills it in place: the session, read at
   * the push, would count it empty and the trigger would never fire (every later request
   * over the budget). So the last message is read again when its text changed.
   * @type {{ message: M, text: string } | null}
   */
  #last = null;

  /**
   * How much the provider's count exceeded contextfold's estimate at the last
   * `reportUsage` (1 at most once under it): every later trigger and compaction takes
   * `maxTokens` scaled down by it, not just the one that report started (after it, the
   * chain grew back to `maxTokens` by the estimate, over it by the provider's count).
   * `null` until the provider counted more.
   * @type {{ provider: number, counted: number } | null}
   */
  #scale = null;

  /**
   * @param {object} [init]
   * @param {M[]} [init.messages] starting messages (copied)
   * @param {boolean} [init.auto] compact automatically on push [true]
   * @param {import("./index.js").CompactOptions} [init.options] options of `compact` and `needsCompaction`
   */
  constructor(init = {}) {
    assertReady("new History()");
    // A misspelt key (`message`) would start an empty history: an error, as in compact.
    const { messages = [], auto = true, options = {} } = checkOptions("new History()", init, INIT_OPTIONS);
    // The options are checked now (by the same reader compact uses: unknown keys, wrong
    // values), not at the first push.
    try {
      needsCompaction([], options);
    } catch (e) {
      if (e?.code !== "invalid_option" || typeof e.path !== "string") throw e;
      const path = e.path.replace(/^options/, "options.options");
      throw contextfoldError(e.code, e.message.replace(/^options/, "options.options"), path);
    }
    this.#messages = [...messages];
    this.#auto = auto !== false;
    this.#options = { ...options };
  }

  /** A copy of the messages, in the format they were pushed in. */
  messages() {
    return [...this.#messages];
  }

  get length() {
    return this.#messages.length;
  }

  /** Whether the strategy's trigger fires now. */
  needsCompaction() {
    this.#followChanges();
    if (this.#session) {
      try {
        return this.#session.needsCompaction();
      } catch {
        // A failed token counter, or a session of an instance a panic reset: the
        // stateless check answers (with its own error, if any).
        this.#drop();
      }
    }
    return needsCompaction(this.#messages, this.#settings());
  }

  /**
   * Appends a message; with `auto`, compacts when the trigger fires. Resolves to the
   * compaction's result when one ran (`null` otherwise). Rejects only when the
   * compaction itself rejects (bad input, `onError: "throw"`); the message stays pushed.
   */
  /** @param {M} message */
  async push(message) {
    this.#followChanges();
    this.#messages.push(message);
    this.#follow(message);
    if (!this.#auto) return null;
    if (this.#running) {
      // The run under way reads the trigger again when it is done.
      this.#pushedWhileRunning = true;
      return null;
    }
    if (!this.needsCompaction()) return null;
    return this.compact();
  }

  /**
   * Keeps the session in wasm up with the message just pushed: only that message crosses
   * into wasm, unless the session is new (or the detected format changed: it reads the
   * whole chain again). On any failure the session goes, and the stateless check answers.
   * @param {M} message
   */
  #follow(message) {
    try {
      const text = stringifyChain([message]);
      this.#last = { message, text };
      if (this.#session === null || !this.#session.push(text)) this.#readAll();
    } catch {
      this.#drop();
    }
  }

  /** Reads the chain again when the last message pushed was changed in place since. */
  #followChanges() {
    const last = this.#last;
    if (this.#session === null || last === null || this.#messages.at(-1) !== last.message) return;
    try {
      const text = stringifyChain([last.message]);
      if (text === last.text) return;
      last.text = text;
      this.#readAll();
    } catch {
      this.#drop();
    }
  }

  /** Reads the whole chain into the session (a new one when there is none). */
  #readAll() {
    this.#session ??= new __Session(this.#settings());
    this.#session.reset(stringifyChain(this.#messages));
  }

  /**
   * The history's tokens as the compaction counts them: the session's total, read with
   * the options' `tokenCounter` when there is one (the built-in estimate otherwise).
   */
  #tokens() {
    this.#followChanges();
    if (this.#session === null) {
      try {
        this.#readAll();
      } catch {
        this.#drop();
      }
    }
    if (this.#session) {
      try {
        return this.#session.total;
      } catch {
        this.#drop();
      }
    }
    return measureChain(this.#messages, { format: this.#options.format }).total.tokens;
  }

  /**
   * Lets the session go. Not `free()`: after a panic reset it may belong to the previous
   * instance, whose pointers mean nothing to the new one; its finalizer frees it only in
   * the instance it came from.
   */
  #drop() {
    this.#session = null;
    this.#last = null;
  }

  /**
   * The input tokens the provider reported for the last call (`usage.prompt_tokens`,
   * `usage.input_tokens`, ...), as the trigger: providers count their own way, so when
   * that is over `maxTokens`, the history compacts now; from then on every trigger and
   * compaction takes `maxTokens` scaled by how much the provider's count exceeds
   * contextfold's (`#scale`). Resolves to the result when it compacted, `null` otherwise
   * (under the budget, or no `maxTokens` in the options).
   * @param {number} inputTokens
   */
  async reportUsage(inputTokens) {
    if (!Number.isInteger(inputTokens) || inputTokens < 0) {
      throw contextfoldError("invalid_option", "inputTokens: expected a whole number of tokens", "inputTokens");
    }
    const max = this.#options.maxTokens;
    if (typeof max !== "number") return null;
    const counted = this.#tokens();
    const scale = counted > 0 && inputTokens > counted ? { provider: inputTokens, counted } : null;
    if (scale?.provider !== this.#scale?.provider || scale?.counted !== this.#scale?.counted) {
      this.#scale = scale;
      // The trigger reads the scaled budget from now on.
      this.#drop();
    }
    if (inputTokens <= max) return null;
    return this.compact();
  }

  /**
   * A budget the chain cannot fit, under a `maxTokens` that `reportUsage` scaled down:
   * the error says so (the budget it names is not the one given), and how to undo it.
   * @param {unknown} error
   * @param {import("./index.js").CompactOptions} settings
   */
  #explainScale(error, settings) {
    const scale = this.#scale;
    const given = this.#options.maxTokens;
    const e = /** @type {{ code?: unknown, message?: unknown, path?: unknown }} */ (error);
    if (scale === null || e?.code !== "budget_exceeded" || settings.maxTokens === given) return error;
    const why =
      `maxTokens ${given} scaled to ${settings.maxTokens} by reportUsage (the provider counted ` +
      `${scale.provider} tokens where contextfold counts ${scale.counted}; a later reportUsage ` +
      `with the provider's new count scales it again)`;
    const path = typeof e.path === "string" ? e.path : "options.maxTokens";
    return contextfoldError("budget_exceeded", `${e.message}: ${why}`, path);
  }

  /** The options of every trigger and compaction: `maxTokens` scaled by `#scale`. */
  #settings() {
    const max = this.#options.maxTokens;
    if (typeof max !== "number" || this.#scale === null) return this.#options;
    const { provider, counted } = this.#scale;
    return { ...this.#options, maxTokens: Math.max(1, Math.floor((max * counted) / provider)) };
  }

  /**
   * Compacts now. Concurrent calls share one run; one with its own settings runs after the
   * run under way (on what it left), never folded into it. Resolves to the
   * `CompactResult`; the history takes its messages only when the result changed something.
   * @param {import("./index.js").CompactOptions} [override] options of this run only
   */
  compact(override = undefined) {
    if (this.#running && override !== undefined) {
      const after = () => this.compact(override);
      return this.#running.then(after, after);
    }
    if (!this.#running) {
      this.#running = this.#runAndFollow(override).finally(() => {
        this.#running = null;
      });
    }
    return this.#running;
  }

  /**
   * A run, then (with `auto`) runs on the history's own options for as long as messages
   * pushed while the last one ran took the history over its trigger: compacted now, not
   * at some later push (a chat UI sends the history in between), whatever started the
   * run (a push, `compact()`, `reportUsage`). A run that failed, rolled back or was
   * cancelled is not repeated. Resolves to the last run's result.
   * @param {import("./index.js").CompactOptions} [override]
   */
  async #runAndFollow(override) {
    this.#pushedWhileRunning = false;
    let result = await this.#run(override);
    const failed = (/** @type {typeof result} */ r) =>
      !r.changed && (r.report.rolledBack || r.report.cancelled || r.report.errors.length > 0);
    while (this.#pushedWhileRunning && !failed(result) && this.needsCompaction()) {
      this.#pushedWhileRunning = false;
      result = await this.#run(undefined);
    }
    return result;
  }

  /**
   * The options of one run: the history's, with the override's present values over them
   * (`undefined` and `null` are absent, as everywhere in the options). A budget in the
   * override replaces the history's, whichever unit either is in: `{ maxTokens }` on a
   * history of `maxBytes` is that run's budget, not two budgets at once.
   * @param {import("./index.js").CompactOptions | undefined} override
   */
  #runSettings(override) {
    const settings = this.#settings();
    if (override === undefined) return settings;
    if (!isObject(override)) {
      throw contextfoldError("invalid_option", "override: expected an object (options of compact)", "override");
    }
    const given = Object.fromEntries(
      Object.entries(copyOptions(override)).filter(([, v]) => v !== undefined && v !== null),
    );
    if (given.maxTokens === undefined && given.maxBytes === undefined) return { ...settings, ...given };
    const { maxTokens, maxBytes, ...rest } = settings;
    return { ...rest, ...given };
  }

  /** @param {import("./index.js").CompactOptions} [override] */
  async #run(override) {
    const snapshot = this.#messages.slice();
    const settings = this.#runSettings(override);
    const result = await compact(snapshot, settings).catch((e) => {
      throw this.#explainScale(e, settings);
    });
    if (result.changed) {
      if (!Array.isArray(result.messages)) {
        throw contextfoldError(
          "unsupported_shape",
          "History holds message arrays; give Anthropic's system prompt as a leading system message",
          undefined,
        );
      }
      // Messages pushed while the compaction ran come after the compacted chain.
      this.#messages = [...result.messages, ...this.#messages.slice(snapshot.length)];
      // Read again at the next push: once per fold.
      this.#drop();
    }
    return result;
  }

  /**
   * What to store: `History.fromJSON(JSON.parse(JSON.stringify(history)))` restores it.
   * Plain JSON: binary file and image data as base64 text, URLs as their href.
   */
  toJSON() {
    const { summarizer, signal, tokenCounter, onProgress, ...storable } = this.#options;
    const messages = plainMessages(this.#messages);
    const stored = { version: VERSION, auto: this.#auto, options: storable, messages };
    // The provider's count against ours (`reportUsage`): a chat route restoring the
    // history every request keeps its triggers scaled.
    return this.#scale ? { ...stored, usage: { ...this.#scale } } : stored;
  }

  /**
   * Restores a stored history. Functions and signals cannot be stored: pass them again
   * in `options` (merged over the stored ones).
   * @template [M=unknown]
   * @param {import("./index.js").StoredHistory<M> | string} data
   * @param {import("./index.js").CompactOptions} [options]
   * @returns {History<M>}
   */
  static fromJSON(data, options = {}) {
    if (!isObject(options)) {
      throw contextfoldError("invalid_option", "options: expected an object (the options of compact)", "options");
    }
    const value = typeof data === "string" ? parseStored(data) : data;
    if (!value || typeof value !== "object" || value.version !== VERSION || !Array.isArray(value.messages)) {
      throw contextfoldError("invalid_history", "not a stored History (expected { version: 1, messages: [...] })", "");
    }
    if (value.options !== undefined && value.options !== null && !isObject(value.options)) {
      throw contextfoldError("invalid_history", "options: the stored options are not an object", "options");
    }
    if (value.auto !== undefined && typeof value.auto !== "boolean") {
      throw contextfoldError("invalid_history", "auto: the stored auto is not true or false", "auto");
    }
    const notMessage = value.messages.findIndex((m) => !isObject(m));
    if (notMessage >= 0) {
      const at = `messages[${notMessage}]`;
      throw contextfoldError("invalid_history", `${at}: not a message (an object)`, at);
    }
    const usage = value.usage;
    const counts = (n) => Number.isInteger(n) && n > 0;
    if (usage !== undefined && !(isObject(usage) && counts(usage.provider) && counts(usage.counted))) {
      throw contextfoldError("invalid_history", "usage: expected { provider, counted } token counts", "usage");
    }
    const merged = { ...(value.options ?? {}), ...options };
    // Checked here, as the constructor does, but with the path a culprit has both in the
    // stored data and in `options` (`options.maxTokens`); the constructor's paths are of
    // its init (`options.options.maxTokens`).
    assertReady("History.fromJSON()");
    needsCompaction([], merged);
    /** @type {History<M>} */
    const history = new History({ messages: value.messages, auto: value.auto, options: merged });
    if (usage !== undefined) history.#scale = { provider: usage.provider, counted: usage.counted };
    return history;
  }
}

/**
 * Stored JSON text, or the package's error (not a bare SyntaxError) when it is not JSON:
 * the core's reader says where (line, column, byte offset, path).
 */
function parseStored(text) {
  try {
    return JSON.parse(text);
  } catch {
    try {
      parseChain(text);
    } catch (e) {
      if (e?.code === "invalid_json") {
        throw contextfoldError("invalid_json", `not a stored History: ${e.message}`, e.path ?? "");
      }
    }
    throw contextfoldError("invalid_json", "not a stored History: invalid JSON", "");
  }
}

/** The class as index.d.ts declares it: a mismatch fails `npm run check:types`. */
/** @type {typeof import("./index.js").History} */
const _declaredHistory = History;
