// The Responses API's built-in tools (computer, shell, local shell, apply patch, programs)
// and hosted MCP calls through the public API, the outputs judged by the `openai` SDK's
// `ResponseInputItem` type (and contextfold's own `OpenAIResponsesItem`).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import zlib from "node:zlib";
import { compact, convert, measureChain, validateChain } from "contextfold";
import { TypeCollector } from "./judges.mjs";

/** A `width` x `height` PNG of about `bytes` bytes, as a `data:` URL. */
function png(width, height, bytes) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const body = [chunk("IHDR", ihdr), chunk("IDAT", Buffer.alloc(bytes, 7)), chunk("IEND", Buffer.alloc(0))];
  const file = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), ...body]);
  return `data:image/png;base64,${file.toString("base64")}`;
}

const log = (tag) =>
  Array.from({ length: 80 }, (_, i) => `${tag} line ${i}: FAIL src/parser.test.ts > case ${i}`).join("\n");
const REQUEST = "Run the tests and fix them until they pass.";
const answer = (i) => ({
  type: "message",
  id: `msg_${i}`,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "Still failing, trying again.", annotations: [] }],
});

/** A Codex-style turn of 8 calls of `kind` and their outputs. */
function agentTurn(kind) {
  const chain = [{ role: "user", content: REQUEST }];
  for (let i = 0; i < 8; i++) {
    const call_id = `c${i}`;
    if (kind === "shell_call") {
      chain.push({
        type: "shell_call",
        id: `sh_${i}`,
        call_id,
        status: "completed",
        action: { commands: ["npm test"] },
      });
      chain.push({
        type: "shell_call_output",
        call_id,
        output: [{ stdout: log(i), stderr: "", outcome: { type: "exit", exit_code: 1 } }],
      });
    } else if (kind === "local_shell_call") {
      const action = { type: "exec", command: ["npm", "test"], env: {} };
      chain.push({ type: "local_shell_call", id: `ls_${i}`, call_id, status: "completed", action });
      // Both forms the API is sent: `id` the call's `call_id` (as typed), or the call item's `id`.
      chain.push({ type: "local_shell_call_output", id: i % 2 ? call_id : `ls_${i}`, output: log(i) });
    } else if (kind === "apply_patch_call") {
      const operation = { type: "update_file", path: "src/parser.ts", diff: "@@\n-a\n+b\n" };
      chain.push({ type: "apply_patch_call", id: `ap_${i}`, call_id, status: "completed", operation });
      chain.push({ type: "apply_patch_call_output", call_id, status: "failed", output: log(i) });
    } else if (kind === "mcp_call") {
      chain.push({
        type: "mcp_call",
        id: `mcp_${i}`,
        server_label: "ci",
        name: "run_tests",
        arguments: "{}",
        output: log(i),
        status: "completed",
      });
    }
  }
  chain.push(answer(1), { role: "user", content: "Keep going." });
  return chain;
}

describe("Responses built-in tools", () => {
  it("a computer screenshot counts by its area, as the same image in a function output does", async () => {
    const shot = png(1280, 800, 150_000);
    const viaFunction = measureChain([
      { role: "user", content: "Book a flight." },
      { type: "function_call", call_id: "c1", name: "screenshot", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "c1",
        output: [{ type: "input_image", image_url: shot, detail: "auto" }],
      },
    ]).messages[2].tokens;
    const chain = [{ role: "user", content: "Book the cheapest flight to Lisbon." }];
    for (let i = 0; i < 8; i++) {
      chain.push({ type: "reasoning", id: `rs_${i}`, summary: [], encrypted_content: `ENC${i}` });
      chain.push({
        type: "computer_call",
        id: `cu_${i}`,
        call_id: `call_${i}`,
        status: "completed",
        action: { type: "click", button: "left", x: 10 * i, y: 20 },
        pending_safety_checks: [],
      });
      chain.push({
        type: "computer_call_output",
        call_id: `call_${i}`,
        output: { type: "computer_screenshot", image_url: shot },
      });
    }
    const measured = measureChain(chain);
    const viaComputer = measured.messages.find((m) => m.role === "tool").tokens;
    assert.ok(Math.abs(viaComputer - viaFunction) < 20, `${viaComputer} vs ${viaFunction}`);
    assert.ok(measured.total.tokens < 15_000, `${measured.total.tokens}`);
    const r = await compact(chain, { maxTokens: 30_000 });
    assert.equal(r.changed, false);
  });

  it("window summarizes a program output in its own item and leaves a screenshot alone", async () => {
    const types = new TypeCollector("sdk-responses-window");
    const big = Array.from({ length: 200 }, (_, i) => `res line ${i}: some output text ${i}`).join("\n");
    const cases = {
      computer_call: [
        {
          type: "computer_call",
          id: "cu_1",
          call_id: "call_c",
          status: "completed",
          action: { type: "screenshot" },
          pending_safety_checks: [],
        },
        {
          type: "computer_call_output",
          call_id: "call_c",
          output: { type: "computer_screenshot", image_url: `data:image/png;base64,${"A".repeat(20000)}` },
        },
      ],
      program: [
        { type: "program", id: "prog_1", call_id: "call_p", code: "return await tools.search({})", fingerprint: "fp" },
        { type: "program_output", id: "po_1", call_id: "call_p", result: big, status: "completed" },
      ],
    };
    for (const [kind, [call, output]] of Object.entries(cases)) {
      const chain = [
        { role: "user", content: "Do the thing." },
        call,
        output,
        answer(1),
        { role: "user", content: "next" },
      ];
      const r = await compact(structuredClone(chain), {
        strategy: "window",
        maxTokens: 1200,
        summarizer: async () => "short summary",
      });
      const answered = r.messages.find(
        (m) => m.call_id === call.call_id && m !== r.messages.find((x) => x.type === call.type),
      );
      assert.equal(answered?.type, output.type, `${kind}: ${JSON.stringify(r.messages).slice(0, 300)}`);
      assert.ok(!r.messages.some((m) => m.type === "function_call_output"), kind);
      assert.deepEqual(validateChain(r.messages), []);
      types.add("openai-responses", `window ${kind}`, r.messages);
    }
    // A computer call answered by a function output is what the API rejects: reported.
    const wrong = [
      cases.computer_call[0],
      { type: "function_call_output", call_id: "call_c", output: "short summary" },
    ];
    const found = validateChain([{ role: "user", content: "go" }, ...wrong]);
    assert.deepEqual(
      found.map((d) => d.code),
      ["wrong_output_item"],
    );
    assert.deepEqual(types.check(), []);
  });

  for (const kind of ["shell_call", "local_shell_call", "apply_patch_call", "mcp_call"]) {
    it(`${kind}: outputs pair with their calls, are masked in their own items, and the request stays`, async () => {
      const types = new TypeCollector(`sdk-responses-${kind}`);
      const chain = agentTurn(kind);
      const before = measureChain(chain);
      // user, then each call and its output, the answer, the next request.
      assert.equal(before.messages.filter((m) => m.role === "tool").length, 8, kind);
      const masked = await compact(structuredClone(chain), { strategy: "mask", maxTokens: 1000 });
      assert.ok(
        masked.report.after.tokens < before.total.tokens * 0.5,
        `${masked.report.after.tokens} of ${before.total.tokens}`,
      );
      assert.deepEqual(
        masked.messages.map((m) => m.type ?? "message"),
        chain.map((m) => m.type ?? "message"),
      );
      assert.deepEqual(validateChain(masked.messages), []);
      types.add("openai-responses", `mask ${kind}`, masked.messages);
      let calls = 0;
      const summarizer = async () => {
        calls++;
        return "## Current state\n- tests failing";
      };
      const auto = await compact(structuredClone(chain), {
        maxTokens: Math.round(before.total.tokens * 0.9),
        summarizer,
      });
      assert.ok(JSON.stringify(auto.messages).includes(REQUEST), kind);
      assert.equal(calls, 0, "masking is enough");
      assert.deepEqual(validateChain(auto.messages), []);
      types.add("openai-responses", `auto ${kind}`, auto.messages);
      assert.deepEqual(types.check(), []);
    });
  }

  it("a custom tool call stays custom through the native form", () => {
    const chain = [
      { role: "user", content: "patch it" },
      {
        type: "custom_tool_call",
        id: "ctc_1",
        call_id: "call_1",
        name: "apply_diff",
        input: "*** Begin Patch\n+b\n*** End Patch",
      },
      { type: "custom_tool_call_output", call_id: "call_1", output: "done" },
    ];
    const native = convert(structuredClone(chain), { from: "openai-responses", to: "native" });
    const back = convert(native.messages, { from: "native", to: "openai-responses" });
    assert.equal(back.messages[1].type, "custom_tool_call");
    assert.equal(back.messages[1].input, chain[1].input);
    assert.equal(back.messages[2].type, "custom_tool_call_output");
  });

  it("an assistant message converted back from native is an input item the SDK types accept", () => {
    const types = new TypeCollector("sdk-responses-assistant");
    const chain = [
      { role: "user", content: "Where are the docs?" },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [
          {
            type: "output_text",
            text: "See the docs.",
            annotations: [{ type: "url_citation", url: "https://x.dev", title: "docs", start_index: 4, end_index: 12 }],
          },
        ],
      },
      { role: "user", content: "thanks" },
    ];
    // Native keeps the output item for the way back: it comes back whole.
    const native = convert(chain, { from: "openai-responses", to: "native" }).messages;
    assert.deepEqual(convert(native, { from: "native", to: "openai-responses" }).messages, chain);
    // Without it (the caller's own native message), an easy input message.
    native[1] = { role: "assistant", parts: [{ ...native[1].parts[0], _responses: undefined }] };
    const back = convert(JSON.parse(JSON.stringify(native)), { from: "native", to: "openai-responses" });
    assert.deepEqual(back.messages[1], { role: "assistant", content: "See the docs." });
    assert.ok(back.changes.some((c) => c.change === "droppedFields" && c.fields.includes("annotations")));
    types.add("openai-responses", "native -> responses", back.messages);
    types.add("openai-responses", "as read", chain);
    assert.deepEqual(types.check(), []);
  });
});
