// `contextfold/openai-agents`: compaction for the OpenAI Agents SDK (JS). Its sessions and
// model inputs hold `AgentInputItem`s, the SDK's own protocol (camelCase `callId`,
// `function_call_result`, `providerData`), not Responses input items. Each item is
// translated to the Responses item it stands for, the core compacts those in the
// `openai-responses` format, and every item compaction kept (`compact`'s reuse plan) goes
// back as the very object it was; only what compaction made or changed (summaries, masked
// outputs and arguments, the output answering a call left open) is translated back.
// Screenshots and generated images go as the Responses items that hold them as images.
// Items the core cannot read as Responses items (other hosted tool calls, images by file
// id, kinds added later) travel as opaque items that are kept, or summarized, whole.
import { compact, integrationSettings, needsCompaction } from "./api.js";
import { textOf } from "./binary.js";
import { contextfoldError } from "./errors.js";
export { isContextfoldError } from "./errors.js";

/** Built-in tool calls and their results: the protocol type and the Responses one. */
const BUILT_IN = {
  computer_call: "computer_call",
  computer_call_result: "computer_call_output",
  shell_call: "shell_call",
  shell_call_output: "shell_call_output",
  apply_patch_call: "apply_patch_call",
  apply_patch_call_output: "apply_patch_call_output",
};

/** The protocol type of a built-in tool's Responses item. */
const BUILT_IN_BACK = Object.fromEntries(Object.entries(BUILT_IN).map(([agents, responses]) => [responses, agents]));

/**
 * A built-in tool output as the Responses item holds it: a screenshot by its `image_url`
 * (measured by its area), a shell outcome's `exit_code`.
 */
function outputOf(item) {
  const { output } = item;
  if (item.type === "computer_call_result" && output?.type === "computer_screenshot") {
    return typeof output.data === "string" && output.data !== ""
      ? { type: output.type, image_url: output.data }
      : output;
  }
  if (item.type === "shell_call_output" && Array.isArray(output)) {
    return output.map(({ outcome, ...streams }) =>
      outcome?.type === "exit"
        ? { ...streams, outcome: { type: "exit", exit_code: outcome.exitCode ?? null } }
        : { ...streams, outcome },
    );
  }
  return output;
}

/** The text an output value carries (a string, `{type: "text"}`, or a list of them). */
function outputText(output) {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map(outputText).join("\n");
  if (output && typeof output === "object" && typeof output.text === "string") return output.text;
  return JSON.stringify(output ?? null);
}

/** A data URL of `data` (base64 text or bytes), or `undefined`. */
function dataUrl(data, mediaType) {
  const text = typeof data === "string" ? data : textOf(data);
  if (text === undefined) return undefined;
  return text.startsWith("data:") ? text : `data:${mediaType ?? "application/octet-stream"};base64,${text}`;
}

/** The translation of one history: items and content parts by index, both ways. */
class Translation {
  constructor(items) {
    /** Content parts kept opaque, by index. */
    this.parts = [];
    /** Calls by id, for the name a translated-back result needs. */
    this.calls = new Map();
    this.items = items;
    this.responses = items.map((item, i) => this.toResponses(item, i));
  }

  /** A content part: text and images by URL map; anything else is opaque. */
  part(part) {
    if ((part?.type === "input_text" || part?.type === "output_text") && typeof part.text === "string") {
      return { type: part.type, text: part.text };
    }
    if (part?.type === "refusal" && typeof part.refusal === "string") return { type: "refusal", refusal: part.refusal };
    if (part?.type === "input_image" && typeof part.image === "string") {
      return { type: "input_image", image_url: part.image, detail: part.detail ?? "auto" };
    }
    // Files, and images by file id: the Responses part they are (a summarizer reads what
    // they are, a file's name), back as the caller's own part.
    const kept = { contextfold_part: this.parts.length };
    const id = part?.image?.id ?? part?.image?.fileId;
    if (part?.type === "input_image" && typeof id === "string") {
      this.parts.push(part);
      return { type: "input_image", file_id: id, detail: part.detail ?? "auto", ...kept };
    }
    if (part?.type === "input_file") {
      const out = this.outputPart(part);
      if (out.type !== "agents_part") {
        this.parts.push(part);
        return { ...out, ...kept };
      }
      return out;
    }
    this.parts.push(part);
    return { type: "agents_part", part: this.parts.length - 1 };
  }

  /**
   * A tool output: text as text; images and files as the Responses parts they are, so
   * they are measured as media (not as their base64 text) and summarized as such.
   */
  output(output) {
    if (typeof output === "string") return output;
    const list = Array.isArray(output) ? output : [output];
    if (list.every((p) => typeof p === "string" || typeof p?.text === "string")) return outputText(output);
    return list.map((p) => this.outputPart(p));
  }

  /** A part of a tool output: `{type: "text" | "image" | "file"}` alone, `input_*` in a list. */
  outputPart(part) {
    if (typeof part === "string") return { type: "input_text", text: part };
    const type = part?.type;
    if ((type === "text" || type === "input_text") && typeof part.text === "string") {
      return { type: "input_text", text: part.text };
    }
    const detail = { detail: part?.detail ?? "auto" };
    if (type === "image" || type === "input_image") {
      const { image } = part;
      const url = typeof image === "string" ? image : (image?.url ?? dataUrl(image?.data, image?.mediaType));
      if (typeof url === "string") return { type: "input_image", image_url: url, ...detail };
      const id = image?.fileId ?? image?.id;
      if (typeof id === "string") return { type: "input_image", file_id: id, ...detail };
    }
    if (type === "file" || type === "input_file") {
      const { file } = part;
      const filename = file?.filename ?? part.filename;
      const named = typeof filename === "string" ? { filename } : {};
      if (typeof file === "string") {
        const key = /^https?:/.test(file) ? "file_url" : "file_data";
        return { type: "input_file", [key]: file, ...named };
      }
      const data = dataUrl(file?.data, file?.mediaType);
      // An image sent as a file is billed as an image.
      if (data !== undefined && file.mediaType?.startsWith("image/")) {
        return { type: "input_image", image_url: data, detail: "auto" };
      }
      if (data !== undefined) return { type: "input_file", file_data: data, ...named };
      if (typeof file?.url === "string") return { type: "input_file", file_url: file.url, ...named };
      if (typeof file?.id === "string") return { type: "input_file", file_id: file.id, ...named };
    }
    this.parts.push(part);
    return { type: "agents_part", part: this.parts.length - 1 };
  }

  toResponses(item, i) {
    const type = item?.type ?? "message";
    if (type === "message" && typeof item.role === "string") {
      const content = typeof item.content === "string" ? item.content : (item.content ?? []).map((p) => this.part(p));
      // Its index: two messages alike (the same text said twice) stay two items, so a kept
      // one goes back as its own object, not as the other.
      return { role: item.role, content, contextfold_item: i };
    }
    if (type === "function_call") {
      this.calls.set(item.callId, item);
      return { type, call_id: item.callId, name: item.name, arguments: item.arguments };
    }
    if (type === "function_call_result") {
      return { type: "function_call_output", call_id: item.callId, output: this.output(item.output) };
    }
    if (type === "reasoning") {
      // Its text is what summaries may say of it; the item itself is never rewritten.
      const summary = (item.content ?? []).map((c) => ({ type: "summary_text", text: String(c?.text ?? "") }));
      return { type, id: item.id ?? `rs_${i}`, summary, encrypted_content: `contextfold-item:${i}` };
    }
    if (BUILT_IN[type] !== undefined && typeof item.callId === "string") {
      const { action, operation, status } = item;
      // `item`: the original an output compaction changed is rebuilt from (its id,
      // `providerData`); a kept one comes back through the reuse plan, not through it.
      return { type: BUILT_IN[type], call_id: item.callId, action, operation, status, output: outputOf(item), item: i };
    }
    // A generated image: the Responses item, so that it is an image (measured and shown to
    // a summarizer as one), not its base64 as text.
    if (type === "hosted_tool_call" && item.name === "image_generation_call" && typeof item.output === "string") {
      return { type: "image_generation_call", id: item.id, status: item.status, result: item.output, item: i };
    }
    // The provider's compaction of the earlier conversation: the Responses item it is, so
    // that it is kept first as it is (encrypted, no summarizer could read it).
    if (type === "compaction" && typeof item.encrypted_content === "string") {
      return { type, encrypted_content: item.encrypted_content, item: i };
    }
    // Hosted tool calls, kinds added later: opaque, with their text.
    const { name, arguments: args, output } = item ?? {};
    return { type: `agents_${type}`, item: i, name, arguments: args, output };
  }

  /** The protocol item for an item compaction made or changed. */
  fromResponses(out) {
    const builtIn = BUILT_IN_BACK[out.type];
    if (builtIn !== undefined) return this.builtInBack(out, builtIn);
    // Items compaction keeps or drops whole, never rewrites (hosted tool calls).
    if (typeof out.item === "number" && this.items[out.item] !== undefined) return this.items[out.item];
    const index = /^contextfold-item:(\d+)$/.exec(out.encrypted_content ?? "")?.[1];
    if (index !== undefined) return this.items[Number(index)];
    const type = out.type ?? "message";
    if (type === "message") return this.message(out);
    if (type === "function_call_output") {
      const call = this.calls.get(out.call_id);
      return {
        type: "function_call_result",
        name: call?.name ?? "tool",
        callId: out.call_id,
        status: "completed",
        output: Array.isArray(out.output)
          ? out.output.map((p) => this.outputPartBack(p))
          : { type: "text", text: outputText(out.output) },
      };
    }
    if (type === "function_call") {
      const call = this.calls.get(out.call_id);
      const back = { ...call, type, callId: out.call_id, name: out.name, arguments: out.arguments };
      // A call compaction made (a summary's): the result after it is named by it.
      if (call === undefined) this.calls.set(out.call_id, back);
      return back;
    }
    throw contextfoldError("internal", `openai-agents: compaction gave an item it cannot translate back: ${type}`);
  }

  /**
   * A built-in tool's item compaction changed (an output masked or summarized, its
   * content replaced) or made (the placeholder answering a call left open): the
   * original's fields (its id, `providerData`) with the core's output, in the SDK's shape.
   */
  builtInBack(out, type) {
    const original = typeof out.item === "number" ? this.items[out.item] : undefined;
    const back = { ...(original ?? { type }), type, callId: out.call_id };
    if (out.status !== undefined) back.status = out.status;
    if (type === "shell_call_output") {
      back.output = (Array.isArray(out.output) ? out.output : []).map(({ outcome, ...streams }) => ({
        ...streams,
        outcome:
          outcome?.type === "timeout" ? { type: "timeout" } : { type: "exit", exitCode: outcome?.exit_code ?? null },
      }));
    } else if (type === "computer_call_result") {
      back.output = { type: "computer_screenshot", data: out.output?.image_url ?? "" };
    } else if (out.output !== undefined) {
      back.output = out.output;
    }
    return back;
  }

  message(out) {
    const parts = typeof out.content === "string" ? null : out.content.map((p) => this.partBack(p));
    if (out.role === "assistant") {
      const content = parts ?? [{ type: "output_text", text: out.content }];
      return { type: "message", role: "assistant", status: "completed", content };
    }
    if (out.role === "system" || out.role === "developer") {
      const text = parts === null ? out.content : parts.map((p) => p.text ?? "").join("\n\n");
      return { type: "message", role: "system", content: text };
    }
    return { type: "message", role: "user", content: parts ?? out.content };
  }

  /** A part of a tool output list compaction wrote, as the SDK's list part. */
  outputPartBack(part) {
    if (part.type === "agents_part") return this.parts[part.part];
    const detail = part.detail ? { detail: part.detail } : {};
    if (part.type === "input_image")
      return { type: "input_image", image: part.image_url ?? { id: part.file_id }, ...detail };
    if (part.type === "input_file") {
      const named = part.filename ? { filename: part.filename } : {};
      const file = part.file_data ?? (part.file_url ? { url: part.file_url } : { id: part.file_id });
      return { type: "input_file", file, ...named };
    }
    return { type: "input_text", text: part.text ?? "" };
  }

  partBack(part) {
    if (part.type === "agents_part") return this.parts[part.part];
    if (typeof part.contextfold_part === "number" && this.parts[part.contextfold_part] !== undefined) {
      return this.parts[part.contextfold_part];
    }
    if (part.type === "input_image") return { type: "input_image", image: part.image_url, detail: part.detail };
    if (part.type === "refusal") return { type: "refusal", refusal: part.refusal };
    return { type: part.type, text: part.text };
  }

  /**
   * The protocol items for the compacted Responses items. A kept one is the very object
   * `responses` held (`compact`'s reuse plan: the core's word on what it left as it was)
   * and goes back as the caller's own item; any other is translated back.
   */
  back(output) {
    const kept = new Map(this.responses.map((r, i) => [r, this.items[i]]));
    return output.map((out) => kept.get(out) ?? this.fromResponses(out));
  }
}

const settingsOf = (options, where) =>
  integrationSettings(where, options, { format: "openai-responses", strategy: "auto" }).settings;

async function compactWith(items, settings) {
  if (!Array.isArray(items)) {
    throw contextfoldError("invalid_shape", "openai-agents: expected an array of AgentInputItems", "");
  }
  const translation = new Translation(items);
  if (!needsCompaction(translation.responses, settings)) return { items, changed: false, report: undefined };
  const result = await compact(translation.responses, settings);
  if (!result.changed) return { items, changed: false, report: result.report };
  return { items: translation.back(result.messages), changed: true, report: result.report };
}

/** @type {typeof import("./openai-agents.js").compactAgentItems} */
export async function compactAgentItems(items, options) {
  // Async: bad options reject the Promise the declaration promises, never throw.
  return compactWith(items, settingsOf(options, "compactAgentItems"));
}

/** @type {typeof import("./openai-agents.js").contextfoldSession} */
export function contextfoldSession(session, options) {
  const settings = settingsOf(options, "contextfoldSession");
  for (const method of ["getSessionId", "getItems", "addItems", "popItem", "clearSession"]) {
    if (typeof session?.[method] !== "function") {
      throw contextfoldError("invalid_option", `contextfoldSession: session.${method} is not a function`, "session");
    }
  }
  // The run context goes on to a session that takes it (`acceptsRunContext`).
  const wrapped = {
    // Async, as declared: a session that throws synchronously still rejects.
    getSessionId: async () => session.getSessionId(),
    getItems: async (limit, context) => session.getItems(limit, context),
    popItem: async (context) => session.popItem(context),
    clearSession: async (context) => session.clearSession(context),
    async addItems(items, context) {
      await session.addItems(items, context);
      const history = await session.getItems(undefined, context);
      const { items: compacted, changed } = await compactWith(history, settings);
      if (!changed) return;
      // The history is rewritten whole; if writing fails, the original goes back.
      await session.clearSession(context);
      try {
        await session.addItems(compacted, context);
      } catch (error) {
        await session.clearSession(context);
        await session.addItems(history, context);
        throw error;
      }
    },
  };
  if (session.acceptsRunContext === true) wrapped.acceptsRunContext = true;
  // What the session does to items on their way to the model or to its store, and its
  // own handling of a server-side compaction, stay its own (the runner calls them when
  // present). Atomic transactions (`applyHistoryTransaction`, `applyHistoryMutations`)
  // are not offered: the runner then appends through `addItems`, which compacts.
  for (const method of OPTIONAL_SESSION_METHODS) {
    if (typeof session[method] === "function") wrapped[method] = (...args) => session[method](...args);
  }
  return wrapped;
}

/** The optional `Session` methods the wrapper passes on as they are. */
const OPTIONAL_SESSION_METHODS = [
  "prepareHistoryItemForModelInput",
  "prepareHistoryItemsForPersistenceComparison",
  "preserveReasoningItemIdsForPersistence",
  "replaceHistoryWithCompaction",
  "runCompaction",
];
