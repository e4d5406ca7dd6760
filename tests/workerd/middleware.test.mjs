// `contextfold/worker` in real workerd (the binary npm miniflare brings): a Worker built
// from the package (tests/workerd/middleware-worker.mjs) compacts chat requests and
// forwards them to a mock upstream LLM API; its summaries come from a mock
// OpenAI-compatible summarizer endpoint and are cached in Workers KV. Both mocks are
// node:http servers of this test on 127.0.0.1 (random ports); nothing else is contacted.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Log, LogLevel, Miniflare } from "miniflare";
import { estimateTokens, measureChain, validateChain } from "contextfold";
import { root } from "../node/helpers.mjs";

const CLIENT_KEY = "sk-client-0d1e2f3a4b5c6d7e8f90";
const SUMMARIZER_KEY = "sk-summarizer-a1b2c3d4e5f6";

// --- conversations ------------------------------------------------------------------------
const filler = (tag, i) =>
  `${tag} step ${i}: ${"the build log shows the compiler resolving modules and linking objects; ".repeat(12)}`;

/** An OpenAI chain: a system prompt, `sections` complete tool-using turns, then a new user turn. */
function openaiConversation(sections, tag) {
  const messages = [{ role: "system", content: `You are a coding agent (${tag}).` }];
  for (let i = 0; i < sections; i++) {
    messages.push({ role: "user", content: `${tag} task ${i}: fix module ${i}.` });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "run", arguments: `{"cmd":"build ${i}"}` } }],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: filler(tag, i) });
    messages.push({ role: "assistant", content: `Fixed module ${i} for ${tag}. ${filler(tag, i)}` });
  }
  messages.push({ role: "user", content: `${tag} task ${sections}: fix module ${sections}.` });
  return messages;
}

/** An Anthropic request's `system` and `messages`, with tool_use / tool_result blocks. */
function anthropicConversation(sections, tag) {
  const messages = [];
  for (let i = 0; i < sections; i++) {
    messages.push({ role: "user", content: `${tag} question ${i}: check file ${i}.` });
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `Reading file ${i}.` },
        { type: "tool_use", id: `toolu_${i}`, name: "read", input: { path: `f${i}.rs` } },
      ],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: filler(tag, i) }],
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: `File ${i} is fine. ${filler(tag, i)}` }] });
  }
  messages.push({ role: "user", content: `${tag} question ${sections}: and the last file?` });
  return { system: `You review code (${tag}).`, messages };
}

const tools = [
  {
    type: "function",
    function: {
      name: "run",
      description: "Run a command",
      parameters: { type: "object", properties: { cmd: { type: "string" } } },
    },
  },
];

// --- the mock upstream LLM API and the mock summarizer endpoint ----------------------------
/** Every request upstream got: { path, headers, raw (Buffer), body (parsed or null) }. */
const upstreamRequests = [];
/** Calls of the summarizer endpoint per distinct prompt (system + user content). */
const summaryCalls = new Map();
/** Every request the summarizer endpoint got: { headers, raw }. */
const summarizerRequests = [];

/** The SSE stream the upstream sends, with CRLFs and non-ASCII so any re-encoding shows. */
const sseChunks = [
  'data: {"choices":[{"delta":{"role":"assistant","content":"Héllo"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"content":" wörld ✓"}}]}\n\n',
  ": keep-alive comment\n\n",
  "data: [DONE]\n\n",
];
let streamGate = null; // { firstChunkSeen: Promise, waited: boolean }

function readAll(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function tryParse(raw) {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    return null;
  }
}

async function upstreamHandler(req, res) {
  const raw = await readAll(req);
  const body = tryParse(raw);
  upstreamRequests.push({ path: req.url, method: req.method, headers: req.headers, raw, body });
  if (req.method === "GET" && req.url === "/v1/models") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"data":[]}');
    return;
  }
  if (body?.stream === true) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(sseChunks[0]);
    // The rest only once the client has the first chunk (or 5 s later): proves streaming.
    const gate = streamGate;
    const timedOut = await Promise.race([
      gate.firstChunkSeen.then(() => false),
      new Promise((resolve) => setTimeout(() => resolve(true), 5000)),
    ]);
    gate.waited = timedOut;
    for (const chunk of sseChunks.slice(1)) res.write(chunk);
    res.end();
    return;
  }
  // Echo what was received, so each client can check it got the answer to its own request.
  res.writeHead(200, { "content-type": "application/json", "x-upstream": "mock" });
  res.end(JSON.stringify({ id: "resp", choices: [{ message: { role: "assistant", content: "ok" } }], received: body }));
}

async function summarizerHandler(req, res) {
  const raw = await readAll(req);
  summarizerRequests.push({ headers: req.headers, raw: raw.toString("utf8") });
  const body = tryParse(raw);
  const system = body?.messages?.[0]?.content ?? "";
  const user = body?.messages?.[1]?.content ?? "";
  const prompt = `${system}\n${user}`;
  summaryCalls.set(prompt, (summaryCalls.get(prompt) ?? 0) + 1);
  if (user.includes("tag-fail")) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "this summarizer refuses tag-fail" } }));
    return;
  }
  // A short summary naming the conversation tags it saw (to check nothing crosses requests).
  const tags = [...new Set(user.match(/\btag-[a-z0-9]+\b/g) ?? [])].join(",");
  const digest = createHash("sha256").update(prompt).digest("hex").slice(0, 12);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: `Summary ${digest} of ${tags}.` } }] }));
}

async function listen(handler) {
  const server = createServer((req, res) => {
    handler(req, res).catch((error) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** The Worker script first, then every module of the package it may import. */
function workerModules() {
  const src = readdirSync(join(root, "pkg/src"))
    .filter((f) => f.endsWith(".js"))
    .map((f) => `pkg/src/${f}`);
  return [
    { type: "ESModule", path: join(root, "tests/workerd/middleware-worker.mjs") },
    ...[...src, "pkg/glue/contextfold_wasm.js"].map((f) => ({ type: "ESModule", path: join(root, f) })),
    { type: "CompiledWasm", path: join(root, "pkg/glue/contextfold_wasm_bg.wasm") },
  ];
}

let upstreamServer;
let summarizerServer;
let miniflare;

before(async () => {
  upstreamServer = await listen(upstreamHandler);
  summarizerServer = await listen(summarizerHandler);
  miniflare = new Miniflare({
    // The modules are listed (as wrangler's bundle would hold them) rather than collected
    // by Miniflare, which refuses the computed `import("ai")` of the aiSdk adapter.
    modules: workerModules(),
    modulesRoot: root,
    compatibilityDate: "2026-04-01",
    cf: false,
    kvNamespaces: ["SUMMARIES"],
    bindings: {
      UPSTREAM_URL: `http://127.0.0.1:${upstreamServer.address().port}`,
      SUMMARIZER_URL: `http://127.0.0.1:${summarizerServer.address().port}/v1`,
      SUMMARIZER_KEY,
    },
    log: new Log(LogLevel.WARN),
  });
  await miniflare.ready;
});

after(async () => {
  await miniflare?.dispose();
  for (const server of [upstreamServer, summarizerServer]) {
    server?.closeAllConnections?.();
    await new Promise((resolve) => server?.close(resolve) ?? resolve());
  }
});

/** POSTs a JSON body to the Worker. */
function post(path, body, { profile = "budget", headers = {} } = {}) {
  return miniflare.dispatchFetch(`http://worker.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-profile": profile, ...headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

const figures = (response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("x-contextfold-")));

describe("compaction middleware in workerd", () => {
  it("the Worker imports what the `workerd` condition of contextfold/worker names", () => {
    const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
    const entry = manifest.exports["./worker"];
    assert.equal(Object.keys(entry)[0], "types");
    assert.equal(entry.workerd, "./src/worker.workerd.js");
    const source = readFileSync(join(root, "tests/workerd/middleware-worker.mjs"), "utf8");
    assert.ok(source.includes(`"../../pkg/${entry.workerd.slice(2)}"`));
  });

  it("compacts a long OpenAI conversation under the model's budget and forwards it", async () => {
    const messages = openaiConversation(30, "tag-openai");
    const request = { model: "gpt-test", messages, tools, temperature: 0.3, user: "u-1", max_tokens: 500 };
    const budget = 8000 - 1000 - estimateTokens(JSON.stringify(tools));
    const before = upstreamRequests.length;
    const response = await post("/v1/chat/completions", request, {
      headers: { authorization: `Bearer ${CLIENT_KEY}` },
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const head = figures(response);
    assert.equal(head["x-contextfold-error"], undefined, head["x-contextfold-error"]);
    assert.equal(head["x-contextfold-strategy"], "budget");
    assert.ok(Number(head["x-contextfold-before-tokens"]) > budget, JSON.stringify(head));
    assert.ok(Number(head["x-contextfold-after-tokens"]) <= budget, JSON.stringify(head));
    assert.ok(Number(head["x-contextfold-calls"]) >= 1);
    assert.equal(
      Number(head["x-contextfold-cache-misses"]) + Number(head["x-contextfold-cache-hits"]),
      Number(head["x-contextfold-calls"]),
    );
    assert.equal(response.headers.get("x-upstream"), "mock");

    const got = upstreamRequests.slice(before);
    assert.equal(got.length, 1);
    const [forwarded] = got;
    assert.equal(forwarded.path, "/v1/chat/completions");
    assert.equal(forwarded.headers.authorization, `Bearer ${CLIENT_KEY}`, "the client's key goes upstream");
    assert.equal(forwarded.headers["content-length"], String(forwarded.raw.length));
    const sent = forwarded.body;
    // Everything but the messages is untouched, in the same order.
    assert.deepEqual(Object.keys(sent), Object.keys(request));
    for (const key of ["model", "tools", "temperature", "user", "max_tokens"])
      assert.deepEqual(sent[key], request[key]);
    assert.deepEqual(validateChain(sent.messages, { format: "openai" }), []);
    assert.ok(measureChain(sent.messages, { format: "openai" }).total.tokens <= budget);
    assert.deepEqual(sent.messages[0], messages[0], "the system prompt is kept");
    assert.deepEqual(sent.messages.at(-1), messages.at(-1), "the new user turn is kept");
    assert.ok(JSON.stringify(sent.messages).includes("Summary "), "summaries were folded in");
    // The echo the client got is the answer to its own request.
    assert.deepEqual(JSON.parse(text).received, sent);

    // The client's key reached neither the summarizer nor the response.
    assert.ok(summarizerRequests.length > 0);
    for (const r of summarizerRequests) {
      assert.ok(!JSON.stringify(r).includes(CLIENT_KEY), "the client's key was sent to the summarizer");
      assert.equal(r.headers.authorization, `Bearer ${SUMMARIZER_KEY}`);
    }
    assert.ok(![...response.headers].some(([, v]) => v.includes(CLIENT_KEY)));
    assert.ok(!text.includes(CLIENT_KEY));
  });

  it("compacts a long Anthropic conversation (system prompt, tool blocks) under budget", async () => {
    const { system, messages } = anthropicConversation(30, "tag-anthropic");
    const request = {
      model: "claude-test",
      max_tokens: 800,
      system,
      messages,
      metadata: { user_id: "u-2" },
      stream: false,
    };
    const budget = 10_000 - 1000;
    const before = upstreamRequests.length;
    const response = await post("/v1/messages", request, {
      headers: { "x-api-key": CLIENT_KEY, "anthropic-version": "2023-06-01" },
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const head = figures(response);
    assert.equal(head["x-contextfold-error"], undefined, head["x-contextfold-error"]);
    assert.ok(Number(head["x-contextfold-before-tokens"]) > budget);
    assert.ok(Number(head["x-contextfold-after-tokens"]) <= budget);

    const [forwarded] = upstreamRequests.slice(before);
    assert.equal(forwarded.path, "/v1/messages");
    assert.equal(forwarded.headers["x-api-key"], CLIENT_KEY);
    assert.equal(forwarded.headers["anthropic-version"], "2023-06-01");
    const sent = forwarded.body;
    assert.deepEqual(Object.keys(sent), Object.keys(request));
    for (const key of ["model", "max_tokens", "metadata", "stream"]) assert.deepEqual(sent[key], request[key]);
    // The system prompt is kept; the budget strategy may append its summary to it as a block.
    const systemText = typeof sent.system === "string" ? sent.system : sent.system[0].text;
    assert.equal(systemText, system);
    const chain = { system: sent.system, messages: sent.messages };
    assert.deepEqual(validateChain(chain, { format: "anthropic" }), []);
    assert.ok(measureChain(chain, { format: "anthropic" }).total.tokens <= budget);
    assert.deepEqual(sent.messages.at(-1), messages.at(-1));
    assert.ok(sent.messages.length < messages.length);
    for (const r of summarizerRequests) assert.ok(!r.raw.includes(CLIENT_KEY));
  });

  it("passes a streaming (SSE) response through byte for byte, as it streams", async () => {
    let seen;
    streamGate = { firstChunkSeen: new Promise((resolve) => (seen = resolve)), waited: null };
    const response = await post("/v1/chat/completions", {
      model: "gpt-test",
      stream: true,
      messages: openaiConversation(30, "tag-stream"),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const head = figures(response);
    assert.equal(head["x-contextfold-error"], undefined);
    assert.ok(Number(head["x-contextfold-after-tokens"]) < Number(head["x-contextfold-before-tokens"]));
    const reader = response.body.getReader();
    const chunks = [];
    let first = true;
    for (let i = 0; i < 1000; i++) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      if (first) {
        first = false;
        seen();
      }
    }
    assert.equal(streamGate.waited, false, "the first event reached the client before the upstream finished");
    assert.ok(
      Buffer.concat(chunks).equals(Buffer.from(sseChunks.join(""), "utf8")),
      "the stream arrived byte for byte",
    );
  });

  it("passes other routes through untouched", async () => {
    const response = await miniflare.dispatchFetch("http://worker.test/v1/models", {
      headers: { "x-test-profile": "budget" },
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '{"data":[]}');
    assert.deepEqual(figures(response), {});
  });

  it("answers 413 to a body over maxBodyBytes, whether its length is declared or not", async () => {
    const before = upstreamRequests.length;
    const big = { model: "gpt-test", messages: [{ role: "user", content: "x".repeat(600 * 1024) }] };
    const response = await post("/v1/chat/completions", big);
    assert.equal(response.status, 413);
    assert.equal(response.headers.get("content-type"), "application/json");
    const error = await response.json();
    assert.equal(error.error.code, "contextfold_body_too_large");

    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
        controller.close();
      },
    });
    const chunked = await miniflare.dispatchFetch("http://worker.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-profile": "budget" },
      body: stream,
      duplex: "half",
    });
    assert.equal(chunked.status, 413);
    assert.equal((await chunked.json()).error.code, "contextfold_body_too_large");
    assert.equal(upstreamRequests.length, before, "nothing went upstream");
  });

  it("forwards a malformed body untouched (default), or rejects it with 400", async () => {
    const bodies = [
      "{not json",
      JSON.stringify({ model: "gpt-test", messages: "not an array" }),
      JSON.stringify([1, 2, 3]),
      new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      JSON.stringify({ model: 42, messages: [] }),
    ];
    for (const body of bodies) {
      const before = upstreamRequests.length;
      const response = await post("/v1/chat/completions", body);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-contextfold-error"), "malformed_body");
      await response.arrayBuffer();
      const [forwarded] = upstreamRequests.slice(before);
      assert.ok(forwarded.raw.equals(Buffer.from(body)), "forwarded byte for byte");

      const rejected = await post("/v1/chat/completions", body, { profile: "reject" });
      assert.equal(rejected.status, 400);
      const error = await rejected.json();
      assert.equal(error.error.code, "contextfold_malformed_body");
      assert.equal(upstreamRequests.length, before + 1, "a rejected body does not go upstream");
    }

    // A well-formed body whose chain breaks the rules (an orphan tool result) goes on
    // unchanged with the reason; the Worker keeps working.
    const orphan = {
      model: "gpt-small",
      messages: [
        { role: "user", content: "hi" },
        { role: "tool", tool_call_id: "nobody", content: "x" },
      ],
    };
    const before = upstreamRequests.length;
    const response = await post("/v1/chat/completions", orphan);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    assert.deepEqual(upstreamRequests.at(-1).body, orphan);
    assert.equal(upstreamRequests.length, before + 1);
    const healthy = await post("/v1/chat/completions", {
      model: "gpt-test",
      messages: [{ role: "user", content: "still up?" }],
    });
    assert.equal(healthy.status, 200);
    assert.equal(healthy.headers.get("x-contextfold-calls"), "0");
    await healthy.arrayBuffer();
  });

  it("forwards the request unchanged with x-contextfold-error when the summarizer fails", async () => {
    const request = { model: "gpt-test", messages: openaiConversation(30, "tag-fail") };
    const before = upstreamRequests.length;
    const response = await post("/v1/chat/completions", request);
    assert.equal(response.status, 200);
    // A code only: the summarizer's error text (here the API's "refuses tag-fail") stays out.
    assert.equal(response.headers.get("x-contextfold-error"), "summarizer_failed");
    assert.equal(
      response.headers.get("x-contextfold-before-tokens"),
      response.headers.get("x-contextfold-after-tokens"),
    );
    await response.arrayBuffer();
    assert.ok(upstreamRequests[before].raw.equals(Buffer.from(JSON.stringify(request))));
  });

  // Issue 14: a custom summarizer's error text reached the client verbatim in the header
  // (an API key was echoed that way). Now the header is a code; the details go to onReport.
  it("sends only a code in x-contextfold-error; the summarizer's error text goes to onReport", async () => {
    const request = { model: "gpt-test", messages: openaiConversation(30, "tag-leaky") };
    const response = await post("/v1/chat/completions", request, { profile: "leaky" });
    assert.equal(response.status, 200);
    const text = await response.text();
    const { reports, leaked } = await (await miniflare.dispatchFetch("http://worker.test/__reports")).json();
    assert.equal(response.headers.get("x-contextfold-error"), "summarizer_failed");
    for (const [name, value] of response.headers) assert.ok(!value.includes(leaked), `${name} echoes the key`);
    assert.ok(!text.includes(leaked));
    assert.ok(upstreamRequests.at(-1).raw.equals(Buffer.from(JSON.stringify(request))), "forwarded unchanged");
    const report = reports.filter((r) => r.profile === "leaky").at(-1);
    assert.equal(report.error, "summarizer_failed");
    assert.match(report.detail, /call\(s\) failed; first: .*invalid api key/, "the details reach onReport");
    assert.equal(report.compacted, false);
  });

  // Issue 14: the body was rebuilt with JSON.stringify, so integers beyond 2^53 elsewhere
  // in it changed (9007199254740993 became 9007199254740992), and so did spacing and
  // number spelling. Now the new messages are spliced into the bytes as sent.
  it("splices the compacted messages into the body: every other byte goes upstream as sent", async () => {
    const messages = openaiConversation(30, "tag-bigint");
    const prefix = '{ "model" : "gpt-test",\n  "seed": 9007199254740993, "temperature": 0.30,\n  "messages" :  ';
    const suffix =
      ',\n  "metadata": {"n": 12345678901234567890, "note": "caf\\u00e9 \\"quoted\\""}, "logit_bias": {"50256": -100}\n}\n';
    const raw = prefix + JSON.stringify(messages) + suffix;
    const response = await post("/v1/chat/completions", raw);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const head = figures(response);
    assert.equal(head["x-contextfold-error"], undefined, head["x-contextfold-error"]);
    assert.ok(Number(head["x-contextfold-after-tokens"]) < Number(head["x-contextfold-before-tokens"]));
    const forwarded = upstreamRequests.at(-1);
    const sent = forwarded.body.messages;
    assert.ok(sent.length < messages.length, "compacted");
    assert.deepEqual(validateChain(sent, { format: "openai" }), []);
    assert.equal(forwarded.raw.toString("utf8"), prefix + JSON.stringify(sent) + suffix);
    assert.equal(forwarded.headers["content-length"], String(forwarded.raw.length));

    // Anthropic without a system prompt, with a repeated key (JSON.parse keeps the last:
    // that one is replaced) and non-ASCII around it.
    const { messages: turns } = anthropicConversation(30, "tag-bigint2");
    const head2 =
      '{"model":"claude-test","max_tokens":800,"messages":[],"metadata":{"user_id":"ü-9007199254740993"},\t"messages":';
    const tail2 = ', "seed" : 9007199254740993 }';
    const raw2 = head2 + JSON.stringify(turns) + tail2;
    const response2 = await post("/v1/messages", raw2);
    assert.equal(response2.status, 200);
    await response2.arrayBuffer();
    assert.equal(response2.headers.get("x-contextfold-error"), null);
    const forwarded2 = upstreamRequests.at(-1);
    const body2 = forwarded2.body;
    assert.ok(body2.messages.length < turns.length, "compacted");
    assert.deepEqual(validateChain({ system: body2.system, messages: body2.messages }, { format: "anthropic" }), []);
    // A system prompt the strategy added goes in before the closing brace.
    const added = body2.system === undefined ? "" : `,"system":${JSON.stringify(body2.system)}`;
    const expected = head2 + JSON.stringify(body2.messages) + tail2.slice(0, -1) + added + "}";
    assert.equal(forwarded2.raw.toString("utf8"), expected);
  });

  // Issue 14: POSTs to other APIs whose path ends in /messages (OpenAI Assistants threads)
  // were read as Anthropic requests and got malformed_body (or a 400 with "reject").
  it("passes non-chat POSTs through untouched, without headers, whatever onMalformed says", async () => {
    const bodies = [
      ["/v1/threads/thread_abc123/messages", JSON.stringify({ role: "user", content: "Hello there" })],
      ["/v1/threads/thread_abc123/messages", "not even json"],
      ["/v1/chat/completions/chatcmpl-123/messages", "{}"],
      ["/v1/messages/count_tokens", JSON.stringify({ model: "claude-test", messages: "x" })],
    ];
    for (const profile of ["budget", "reject"]) {
      for (const [path, body] of bodies) {
        const before = upstreamRequests.length;
        const response = await post(path, body, { profile });
        assert.equal(response.status, 200, `${profile} ${path}`);
        await response.arrayBuffer();
        assert.deepEqual(figures(response), {}, `${profile} ${path}: no x-contextfold-* header`);
        assert.equal(upstreamRequests.length, before + 1);
        const forwarded = upstreamRequests.at(-1);
        assert.equal(forwarded.path, path);
        assert.ok(forwarded.raw.equals(Buffer.from(body)), "forwarded byte for byte");
      }
    }
    // The chat routes behind a prefix are still chat routes.
    const response = await post("/proxy/anthropic/v1/messages", "{not json", { profile: "reject" });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).error.code, "contextfold_malformed_body");
  });

  it("replays 30 growing turns: each summary is made once, later turns hit the KV cache", async () => {
    const isReplay = (prompt) => prompt.includes("tag-replay");
    let calls = 0;
    let hits = 0;
    let misses = 0;
    const hitsPerTurn = [];
    for (let turn = 1; turn <= 30; turn++) {
      const response = await post(
        "/v1/chat/completions",
        { model: "gpt-test", messages: openaiConversation(turn, "tag-replay") },
        { profile: "sections" },
      );
      assert.equal(response.status, 200);
      const head = figures(response);
      assert.equal(head["x-contextfold-error"], undefined, head["x-contextfold-error"]);
      assert.equal(head["x-contextfold-strategy"], "sections");
      const sent = JSON.parse(await response.text()).received;
      assert.deepEqual(validateChain(sent.messages, { format: "openai" }), []);
      calls += Number(head["x-contextfold-calls"]);
      hits += Number(head["x-contextfold-cache-hits"] ?? 0);
      misses += Number(head["x-contextfold-cache-misses"] ?? 0);
      hitsPerTurn.push(Number(head["x-contextfold-cache-hits"] ?? 0));
    }
    const replayCalls = [...summaryCalls].filter(([prompt]) => isReplay(prompt));
    assert.ok(replayCalls.length >= 20, `${replayCalls.length} distinct summaries`);
    assert.deepEqual(
      replayCalls.filter(([, n]) => n !== 1).map(([, n]) => n),
      [],
      "every distinct span was summarized exactly once",
    );
    assert.equal(misses, replayCalls.length, "a miss is a summarizer call");
    assert.equal(hits + misses, calls);
    assert.ok(hits > misses, `${hits} hits, ${misses} misses`);
    assert.ok(hitsPerTurn.at(-1) >= 20, `the last turn reused its summaries: ${hitsPerTurn}`);
    const stored = await (await miniflare.getKVNamespace("SUMMARIES")).list({ prefix: "sections:" });
    assert.equal(stored.keys.length, replayCalls.length, "one KV entry per summary");
  });

  it("caches summaries with the Cache API too", async () => {
    const request = { model: "gpt-test", messages: openaiConversation(6, "tag-cacheapi") };
    const first = await post("/v1/chat/completions", request, { profile: "cacheapi" });
    const second = await post("/v1/chat/completions", request, { profile: "cacheapi" });
    const [a, b] = [figures(first), figures(second)];
    assert.equal(a["x-contextfold-error"], undefined, a["x-contextfold-error"]);
    assert.ok(Number(a["x-contextfold-calls"]) > 0);
    assert.equal(a["x-contextfold-cache-misses"], a["x-contextfold-calls"]);
    assert.equal(b["x-contextfold-cache-hits"], a["x-contextfold-calls"], "the replay was answered from the cache");
    assert.equal(b["x-contextfold-cache-misses"], "0");
    assert.equal((await first.json()).received.messages.length, (await second.json()).received.messages.length);
  });

  it("forwards a model without a configured window unchanged, saying why", async () => {
    const request = { model: "unknown-model", messages: openaiConversation(30, "tag-unknown") };
    const response = await post("/v1/chat/completions", request);
    assert.equal(response.status, 200);
    assert.match(
      response.headers.get("x-contextfold-skipped"),
      /no context window configured for model "unknown-model"/,
    );
    assert.equal(response.headers.get("x-contextfold-error"), null);
    await response.arrayBuffer();
    assert.ok(upstreamRequests.at(-1).raw.equals(Buffer.from(JSON.stringify(request))));
  });

  it("serves a burst of 200 concurrent requests, each with the result of its own input", async () => {
    const budget = 8000 - 1000;
    const count = 200;
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const tag = `tag-r${i}`;
        const messages = openaiConversation(20 + (i % 5), tag);
        const response = await post("/v1/chat/completions", { model: "gpt-test", messages, n: i });
        const text = await response.text();
        return { i, tag, messages, status: response.status, head: figures(response), text };
      }),
    );
    for (const { i, tag, messages, status, head, text } of results) {
      assert.equal(status, 200, `request ${i}: ${text.slice(0, 200)}`);
      assert.equal(head["x-contextfold-error"], undefined, `request ${i}: ${head["x-contextfold-error"]}`);
      const sent = JSON.parse(text).received;
      assert.equal(sent.n, i);
      assert.deepEqual(sent.messages.at(-1), messages.at(-1));
      assert.deepEqual(validateChain(sent.messages, { format: "openai" }), []);
      assert.ok(measureChain(sent.messages, { format: "openai" }).total.tokens <= budget);
      assert.ok(Number(head["x-contextfold-after-tokens"]) < Number(head["x-contextfold-before-tokens"]));
      const tags = new Set(JSON.stringify(sent).match(/\btag-[a-z0-9]+\b/g));
      assert.deepEqual([...tags], [tag], `request ${i} got only its own content and summaries`);
    }
    assert.ok(Date.now() - started < 20_000);
  });
});
