// Replay benchmark (issue 17 item 4): a conversation compacted as it grows, one model
// request at a time, the way a chat UI (`History`) or the Worker middleware (stateless:
// the whole raw history on every request) compacts it. `node bench/replay.mjs` rewrites
// only the section between the `<!-- replay:start -->` / `<!-- replay:end -->` markers of
// bench/RESULTS.md; `npm run bench` (bench/run.mjs) calls `section()`.
//
// The session: bench/generate.mjs's seeded tool-heavy coding chain (OpenAI format), cut
// into model requests: request t is the history before the t-th assistant message, and
// the assistant message is then appended as the model's answer (raw, as a client would).
// The summarizer is an LLM-like mock: a deterministic text of about a tenth of what it
// reads, at most the request's `targetBytes`, different for every prompt.
//
// Modes, per strategy:
// - stateless: `compact(raw history, options)` on every request (the middleware without
//   a cache);
// - stateless + cache: the same, the summarizer wrapped in `cachedSummarizer` with a
//   `memoryCache` (the middleware with its summary cache);
// - History: one `History` the answers and results are pushed to; each request sends its
//   messages (compacted on push when the trigger fires).
// Peers: LangChain `summarizationMiddleware` (trigger at the budget, keep 50% of it, the
// same mock as its model) stateless (`beforeModel` on the raw history every request) and
// stateful (its state carried from request to request, as in its own agent loop).
//
// Figures: summarizer calls, bytes they read, requests over the budget (contextfold's
// estimate, `measureChain`), the share of requests after the first compaction whose
// messages begin with the previous request's messages byte for byte (what a provider's
// prompt cache needs), and the CPU time per request (median over the run, and the median
// of the last 20 requests against the 20 after request 50: flat is 1.0x).

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cachedSummarizer, compact, History, measureChain, memoryCache } from "contextfold";
import { openaiChain } from "./generate.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const REQUESTS = 200;
export const MAX_TOKENS = 30_000;
const STRATEGIES = [{ name: "auto", stable: true }, "auto", "sections", "window", "tiers", "budget"];
const label = (s) => (typeof s === "string" ? `\`${s}\`` : `\`${s.name}\`, stable`);

/** The session: enough messages for REQUESTS model requests. */
function session() {
  for (let count = REQUESTS * 2; ; count += 50) {
    const chain = openaiChain(count, 17);
    if (chain.filter((m) => m.role === "assistant").length >= REQUESTS) return chain;
  }
}

/** A small string hash, so each prompt gets its own summary text. */
function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 7) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0).toString(16);
}

/** The LLM-like mock, with what it was asked. */
function mockSummarizer() {
  const stats = { calls: 0, inputBytes: 0 };
  const summarize = async (request) => {
    stats.calls++;
    stats.inputBytes += request.prompt.length;
    const size = Math.max(120, Math.min(request.targetBytes, Math.floor(request.transcript.length / 10)));
    const head = `## Summary ${hash(request.prompt)}\n- `;
    return (head + "the work so far: files read, commands run, results seen. ".repeat(size / 50)).slice(0, size);
  };
  summarize.identity = "replay-mock";
  return { summarize, stats };
}

const tokensOf = (messages) => measureChain(messages, { format: "openai" }).total.tokens;

/** The requests of the session: for each, the index of the assistant answer that follows. */
function requestPoints(chain) {
  const points = [];
  chain.forEach((m, i) => {
    if (m.role === "assistant" && points.length < REQUESTS) points.push(i);
  });
  return points;
}

/** Figures of one contender over the run, from what it sent each request. */
function figures(sent, ms, stats, measured = true) {
  let compacted = -1;
  let stable = 0;
  let after = 0;
  let over = 0;
  for (let t = 0; t < sent.length; t++) {
    if (measured && tokensOf(sent[t].messages) > MAX_TOKENS) over++;
    if (sent[t].changed && compacted < 0) compacted = t;
    if (compacted >= 0 && t > compacted) {
      after++;
      const prev = sent[t - 1].text;
      if (sent[t].text.startsWith(prev.slice(0, -1))) stable++;
    }
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.floor(s.length / 2)] : 0;
  };
  const early = median(ms.slice(50, 70));
  const late = median(ms.slice(-20));
  return {
    calls: stats.calls,
    inputBytes: stats.inputBytes,
    over,
    firstCompaction: compacted,
    stable: after ? stable / after : null,
    cpu: median(ms),
    late,
    flat: early > 0 ? late / early : null,
  };
}

/** The sent messages as JSON text with the closing bracket, for the prefix comparison. */
const record = (messages, changed) => ({ messages, changed, text: JSON.stringify(messages) });

async function stateless(chain, strategy, cached) {
  const { summarize, stats } = mockSummarizer();
  const summarizer = cached ? cachedSummarizer(summarize, { cache: memoryCache({ maxEntries: 10_000 }) }) : summarize;
  const sent = [];
  const ms = [];
  for (const at of requestPoints(chain)) {
    const raw = chain.slice(0, at);
    const started = performance.now();
    const r = await compact(raw, { strategy, maxTokens: MAX_TOKENS, summarizer });
    ms.push(performance.now() - started);
    sent.push(record(r.messages, r.changed));
  }
  return figures(sent, ms, stats);
}

/**
 * The Worker middleware itself with a cache store (its summary cache and its prefix
 * cache), in front of an upstream that takes the body; the CPU per request also counts
 * reading and splicing the body. `json`: what a JSON round trip (parse and stringify) of
 * each request's body costs, the yardstick of issue 17.
 */
async function middleware(chain, strategy, json) {
  const { compactionMiddleware, memoryCache } = await import("contextfold/worker");
  const { summarize, stats } = mockSummarizer();
  let forwarded;
  const gateway = compactionMiddleware({
    maxTokens: MAX_TOKENS,
    strategy,
    summarizer: summarize,
    cache: memoryCache({ maxEntries: 10_000 }),
    namespace: "replay",
  })(async (request) => {
    forwarded = request;
    return new Response("ok");
  });
  const sent = [];
  const ms = [];
  for (const at of requestPoints(chain)) {
    const text = JSON.stringify({ model: "m", messages: chain.slice(0, at) });
    const request = new Request("https://gateway.test/v1/chat/completions", { method: "POST", body: text });
    const started = performance.now();
    const response = await gateway(request);
    ms.push(performance.now() - started);
    const roundTrip = performance.now();
    JSON.stringify(JSON.parse(text));
    json.push(performance.now() - roundTrip);
    const { messages } = await forwarded.json();
    sent.push(
      record(
        messages,
        response.headers.get("x-contextfold-after-tokens") !== response.headers.get("x-contextfold-before-tokens"),
      ),
    );
  }
  return figures(sent, ms, stats);
}

async function history(chain, strategy) {
  const { summarize, stats } = mockSummarizer();
  const points = requestPoints(chain);
  const h = new History({ options: { strategy, maxTokens: MAX_TOKENS, summarizer: summarize } });
  const sent = [];
  const ms = [];
  let next = 0;
  for (const at of points) {
    const started = performance.now();
    for (; next < at; next++) await h.push(chain[next]);
    const messages = h.messages();
    ms.push(performance.now() - started);
    // Compacted once the history holds fewer messages than were pushed to it.
    sent.push(record(messages, messages.length < at));
  }
  return figures(sent, ms, stats);
}

async function langchain(chain, stateful) {
  const [{ summarizationMiddleware }, { coerceMessageLikeToMessage, RemoveMessage }, { FakeListChatModel }] =
    await Promise.all([
      import("langchain"),
      import("@langchain/core/messages"),
      import("@langchain/core/utils/testing"),
    ]);
  const { stats } = mockSummarizer();
  // The model the middleware summarizes with: counts its calls and what they read.
  const model = new FakeListChatModel({ responses: ["## Summary\n- the work so far."] });
  const invoke = model.invoke.bind(model);
  model.invoke = async (input, ...rest) => {
    stats.calls++;
    stats.inputBytes += JSON.stringify(input).length;
    return invoke(input, ...rest);
  };
  const tokenCounter = (messages) =>
    messages.reduce((n, m) => n + 3 + Math.ceil(JSON.stringify(m.content ?? "").length / 4), 0);
  const middleware = summarizationMiddleware({
    model,
    trigger: { tokens: MAX_TOKENS },
    keep: { tokens: Math.floor(MAX_TOKENS / 2) },
    tokenCounter,
  });
  const lc = chain.map((m) => coerceMessageLikeToMessage(m));
  const sent = [];
  const ms = [];
  let state = [];
  let next = 0;
  let changed = false;
  for (const at of requestPoints(chain)) {
    const started = performance.now();
    let messages;
    if (stateful) {
      for (; next < at; next++) state.push(lc[next]);
      messages = state;
    } else {
      messages = lc.slice(0, at);
    }
    const update = await middleware.beforeModel({ messages: messages.slice() }, { context: {} });
    if (update?.messages) {
      // A RemoveMessage of everything, then the new list.
      const kept = update.messages.filter((m) => !RemoveMessage.isInstance?.(m) && m.getType?.() !== "remove");
      messages = kept;
      changed = true;
      if (stateful) state = kept;
    }
    ms.push(performance.now() - started);
    const role = { human: "user", ai: "assistant", system: "system", tool: "tool" };
    const openai = messages.map((m) => ({ role: role[m.getType()] ?? "user", content: m.content }));
    sent.push({ messages: openai, changed, text: JSON.stringify(openai) });
  }
  // Its own token counts, not contextfold's: the budget column is not comparable.
  return { ...figures(sent, ms, stats, false), over: null };
}

export async function measure() {
  const chain = session();
  const rows = [];
  const json = [];
  rows.push({
    contender: "contextfold `auto`, stable (the default)",
    mode: "Worker middleware, cache store",
    ...(await middleware(chain, STRATEGIES[0], json)),
  });
  const sorted = [...json].sort((a, b) => a - b);
  rows.json = { median: sorted[Math.floor(sorted.length / 2)], last: json.slice(-20).sort((a, b) => a - b)[10] };
  for (const strategy of STRATEGIES) {
    for (const [mode, run] of [
      ["stateless", () => stateless(chain, strategy, false)],
      ["stateless + cache", () => stateless(chain, strategy, true)],
      ["History", () => history(chain, strategy)],
    ]) {
      try {
        rows.push({ contender: `contextfold ${label(strategy)}`, mode, ...(await run()) });
      } catch (e) {
        rows.push({
          contender: `contextfold ${label(strategy)}`,
          mode,
          error: String(e.code ?? e.message).slice(0, 80),
        });
      }
    }
  }
  for (const [mode, stateful] of [
    ["stateless", false],
    ["stateful (its agent state)", true],
  ]) {
    try {
      rows.push({ contender: "LangChain `summarizationMiddleware`", mode, ...(await langchain(chain, stateful)) });
    } catch (e) {
      rows.push({ contender: "LangChain `summarizationMiddleware`", mode, error: String(e.message).slice(0, 80) });
    }
  }
  return { chain, rows };
}

const pct = (x) => (x == null ? "n/a" : `${Math.round(x * 100)}%`);
const ms = (x) => (x == null ? "n/a" : x < 10 ? `${x.toFixed(2)} ms` : `${x.toFixed(0)} ms`);

export async function section() {
  const started = Date.now();
  const { chain, rows } = await measure();
  const md = [
    "<!-- replay:start -->",
    "## Replay: a growing conversation",
    "",
    `\`bench/replay.mjs\` (its header gives the rules). ${REQUESTS} model requests of a seeded tool-heavy coding session (${chain.length} messages, ${tokensOf(chain)} tokens in all), budget ${MAX_TOKENS} tokens, an LLM-like mock summarizer. ` +
      "Stable prefix: share of the requests after the first compaction whose messages start with the previous request's messages, byte for byte (a provider's prompt cache pays only then). " +
      "CPU: median per request; flat: median of the last 20 requests over that of requests 50-70.",
    "",
    "| contender | mode | summarizer calls | bytes read by the summarizer | requests over budget | first compaction at request | stable prefix | CPU per request | CPU, last 20 | flat |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    if (r.error) md.push(`| ${r.contender} | ${r.mode} | error \`${r.error}\` | | | | | | | |`);
    else
      md.push(
        `| ${r.contender} | ${r.mode} | ${r.calls} | ${r.inputBytes.toLocaleString("en-US")} | ${r.over ?? "n/a"} | ${r.firstCompaction < 0 ? "never" : r.firstCompaction} | ${pct(r.stable)} | ${ms(r.cpu)} | ${ms(r.late)} | ${r.flat == null ? "n/a" : `${r.flat.toFixed(1)}x`} |`,
      );
  }
  const mw = rows[0];
  md.push(
    "",
    `The middleware row is the real \`compactionMiddleware\` with a cache store, so its prefix cache answers a request whose raw history starts with a stored one and still fits: CPU per request ${ms(mw.cpu)} (last 20: ${ms(mw.late)}), against ${ms(rows.json.median)} (last 20: ${ms(rows.json.last)}) for a JSON round trip (parse and stringify) of the same request body: ${(mw.late / rows.json.last).toFixed(1)}x at the end of the run.`,
  );
  md.push("", `Replay bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`, "", "<!-- replay:end -->");
  return { markdown: md.join("\n"), rows };
}

/** Replaces the marked section of `file` (or appends it). */
export function writeSection(file, markdown) {
  const old = existsSync(file) ? readFileSync(file, "utf8") : "";
  const re = /<!-- replay:start -->[\s\S]*?<!-- replay:end -->/;
  const text = re.test(old) ? old.replace(re, () => markdown) : `${old.trimEnd()}\n\n${markdown}\n`;
  writeFileSync(file, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown } = await section();
  writeSection(join(here, "RESULTS.md"), markdown);
  console.log(markdown);
}
