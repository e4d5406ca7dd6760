// convert: media each provider takes, in the shape its SDK types (checked by tsc) accept;
// what it cannot take is dropped and listed in `changes`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { convert } from "contextfold";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { TypeCollector, langchain } from "./judges.mjs";

const b64 = (s) => Buffer.from(s).toString("base64");
const gemini = (mimeType, data) => ({
  contents: [{ role: "user", parts: [{ text: "look" }, { inlineData: { mimeType, data } }] }],
});
const blocksOf = (messages) => messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));

describe("convert to Anthropic: base64 sources it takes", () => {
  it("text as a plain-text source; audio, HEIC, non-UTF-8 text dropped and listed", () => {
    const types = new TypeCollector("sdk-convert-anthropic-media");
    const csv = convert(gemini("text/csv", b64("a,b\n1,2\n")), { to: "anthropic" });
    assert.deepEqual(csv.changes, []);
    assert.deepEqual(blocksOf(csv.messages)[1].source, { type: "text", media_type: "text/plain", data: "a,b\n1,2\n" });
    types.add("anthropic", "text/csv", csv.messages);
    const json = convert(gemini("application/json", b64('{"a":1}')), { to: "anthropic" });
    assert.equal(blocksOf(json.messages)[1].source.data, '{"a":1}');
    types.add("anthropic", "application/json", json.messages);
    const dropped = {
      "openai input_audio": [
        {
          role: "user",
          content: [
            { type: "text", text: "transcribe" },
            { type: "input_audio", input_audio: { data: b64("RIFF....WAVE"), format: "wav" } },
          ],
        },
      ],
      "audio/mpeg": gemini("audio/mpeg", b64("ID3...")),
      "image/heic": gemini("image/heic", b64("heic")),
      "text/csv, not UTF-8": gemini("text/csv", Buffer.from([0xff, 0xfe, 0]).toString("base64")),
    };
    for (const [label, chain] of Object.entries(dropped)) {
      const out = convert(chain, { to: "anthropic" });
      assert.ok(
        out.changes.some((c) => c.change === "droppedMedia" && c.index === 0),
        `${label}: ${JSON.stringify(out.changes)}`,
      );
      assert.deepEqual(blocksOf(out.messages), [], label);
      types.add("anthropic", label, out.messages);
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("convert to OpenAI Chat: audio as input_audio", () => {
  it("WAV and MP3 go as input_audio, from any format; other audio is dropped and listed", () => {
    const wav = b64("RIFF\x24\x00\x00\x00WAVEfmt ");
    const chat = [
      {
        role: "user",
        content: [
          { type: "text", text: "transcribe this" },
          { type: "input_audio", input_audio: { data: wav, format: "wav" } },
        ],
      },
    ];
    const types = new TypeCollector("sdk-convert-openai-audio");
    const viaGemini = convert(convert(chat, { to: "gemini" }).messages, { from: "gemini", to: "openai" });
    assert.deepEqual(viaGemini.messages, chat);
    types.add("openai", "openai -> gemini -> openai", viaGemini.messages);
    const mp3 = convert(gemini("audio/mpeg", wav), { to: "openai" }).messages;
    assert.deepEqual(mp3[0].content[1], { type: "input_audio", input_audio: { data: wav, format: "mp3" } });
    types.add("openai", "gemini audio/mpeg", mp3);
    const aisdk = [
      {
        role: "user",
        content: [
          { type: "text", text: "x" },
          { type: "file", data: wav, mediaType: "audio/wav" },
        ],
      },
    ];
    const fromAiSdk = convert(aisdk, { from: "aisdk", to: "openai" }).messages;
    assert.equal(fromAiSdk[0].content[1].input_audio.format, "wav");
    types.add("openai", "aisdk audio/wav", fromAiSdk);
    const ogg = convert(gemini("audio/ogg", wav), { to: "openai" });
    assert.ok(ogg.changes.some((c) => c.change === "droppedMedia" && c.index === 0));
    assert.equal(ogg.messages[0].content, "look");
    assert.deepEqual(types.check(), []);
  });
});

describe("convert to OpenAI: inline files have a filename", () => {
  it("an Anthropic document's title is the filename; without one, a placeholder", () => {
    const pdf = b64("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF");
    const anthropic = (title) => ({
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, ...title },
            { type: "text", text: "Summarize this report." },
          ],
        },
      ],
    });
    const types = new TypeCollector("sdk-convert-filenames");
    for (const [title, filename] of [
      [{ title: "report.pdf" }, "report.pdf"],
      [{}, "document.pdf"],
    ]) {
      const chat = convert(anthropic(title), { to: "openai" });
      assert.deepEqual(chat.changes, []);
      assert.deepEqual(chat.messages[0].content[0].file, { file_data: `data:application/pdf;base64,${pdf}`, filename });
      types.add("openai", `chat ${filename}`, chat.messages);
      const responses = convert(anthropic(title), { to: "openai-responses" }).messages;
      assert.equal(responses[0].content[0].filename, filename);
    }
    const back = convert(convert(anthropic({ title: "report.pdf" }), { to: "openai" }).messages, {
      from: "openai",
      to: "anthropic",
    });
    assert.deepEqual(back.messages, anthropic({ title: "report.pdf" }).messages);
    assert.deepEqual(types.check(), []);
  });
});

describe("convert through native: X -> native -> Y gives Y no field of X", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const hop = (chain, from, to) => convert(convert(chain, { from, to: "native" }).messages, { from: "native", to });
  it("the SDK types take the result; the way back to X gives X's JSON", () => {
    const types = new TypeCollector("sdk-convert-native-hop");
    const anthropic = {
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
        { role: "assistant", content: "hello" },
      ],
    };
    const responses = [
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "see" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "high" },
        ],
      },
      { type: "message", role: "assistant", content: "ok" },
    ];
    const openai = [
      {
        role: "user",
        name: "alice",
        content: [
          { type: "image_url", image_url: { url: "https://example.com/x.png", detail: "high" } },
          { type: "file", file: { file_id: "file-abc123" } },
        ],
      },
      { role: "assistant", content: "ok" },
    ];
    const gemini = hop(anthropic, "anthropic", "gemini");
    assert.ok(!JSON.stringify(gemini.messages).includes("cache_control"));
    types.add("gemini", "anthropic -> native -> gemini", gemini.messages);
    const fromResponses = hop(responses, "openai-responses", "anthropic");
    assert.ok(fromResponses.changes.some((c) => c.change === "droppedFields" && c.fields.includes("detail")));
    types.add("anthropic", "openai-responses -> native -> anthropic", fromResponses.messages);
    const fromOpenai = hop(openai, "openai", "anthropic");
    assert.equal("name" in fromOpenai.messages[0], false);
    assert.ok(fromOpenai.changes.some((c) => c.change === "droppedMedia"));
    types.add("anthropic", "openai -> native -> anthropic", fromOpenai.messages);
    for (const [chain, format] of [
      [anthropic, "anthropic"],
      [responses, "openai-responses"],
      [openai, "openai"],
    ]) {
      const back = hop(chain, format, format);
      assert.deepEqual(back.messages, convert(chain, { from: format, to: format }).messages, format);
      assert.deepEqual(back.changes, [], format);
      types.add(format, `${format} -> native -> ${format}`, back.messages);
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("convert: an Anthropic document given as content blocks", () => {
  it("goes to the other formats as a plain-text file of its text, as the SDK types take it", () => {
    const types = new TypeCollector("sdk-convert-content-document");
    const clause = "CLAUSE 7: notice period is 90 days.";
    const chain = [
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "content", content: [{ type: "text", text: clause }] },
            title: "contract",
          },
          { type: "text", text: "What is the notice period?" },
        ],
      },
      { role: "assistant", content: "90 days." },
    ];
    for (const to of ["openai", "openai-responses", "gemini"]) {
      const out = convert(chain, { from: "anthropic", to });
      assert.ok(JSON.stringify(out.messages).includes(b64(clause)), to);
      assert.ok(!out.changes.some((c) => c.change === "droppedMedia"), to);
      types.add(to, `anthropic -> ${to}`, out.messages);
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("convert to LangChain: inline files as the standard file block", () => {
  it("a PDF from any format is a `file` block @langchain/anthropic and @langchain/openai send", async () => {
    const pdf = b64("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF");
    const ask = { type: "text", text: "Summarize this report." };
    const sources = {
      anthropic: [
        {
          role: "user",
          content: [ask, { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } }],
        },
      ],
      openai: [
        {
          role: "user",
          content: [
            ask,
            { type: "file", file: { file_data: `data:application/pdf;base64,${pdf}`, filename: "report.pdf" } },
          ],
        },
      ],
      gemini: gemini("application/pdf", pdf),
      aisdk: [{ role: "user", content: [ask, { type: "file", data: pdf, mediaType: "application/pdf" }] }],
    };
    for (const [from, chain] of Object.entries(sources)) {
      const out = convert(chain, { from, to: "langchain" });
      assert.ok(!out.changes.some((c) => c.change === "droppedMedia"), `${from}: ${JSON.stringify(out.changes)}`);
      const revived = mapStoredMessagesToChatMessages(out.messages);
      const anthropic = convertPromptToAnthropic(new ChatPromptValue(revived)).messages;
      assert.deepEqual(
        anthropic[0].content.find((b) => b.type === "document")?.source,
        { type: "base64", media_type: "application/pdf", data: pdf },
        `${from}: ${JSON.stringify(anthropic)}`,
      );
      const chat = convertMessagesToCompletionsMessageParams({ messages: revived, model: "gpt-4o" });
      const file = chat[0].content.find((p) => p.type === "file")?.file;
      assert.equal(file?.file_data, `data:application/pdf;base64,${pdf}`, `${from}: ${JSON.stringify(chat)}`);
      if (from === "openai") assert.equal(file.filename, "report.pdf");
      assert.deepEqual(await langchain(out.messages), [], from);
    }
  });
});

describe("convert: an AI SDK image without a mediaType", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]).toString("base64");
  const chain = (image) => [
    {
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image", image },
      ],
    },
  ];
  const targets = ["openai", "openai-responses", "anthropic", "gemini", "langchain"];

  it("takes the media type its bytes show (as `ai` does), as base64 or bytes", () => {
    for (const [data, mediaType] of [
      [PNG, "image/png"],
      [new Uint8Array(Buffer.from(PNG, "base64")), "image/png"],
      [JPEG, "image/jpeg"],
    ]) {
      const digits = typeof data === "string" ? data : PNG;
      for (const to of targets) {
        const out = convert(chain(data), { from: "aisdk", to });
        assert.deepEqual(out.changes, [], to);
        const text = JSON.stringify(out.messages);
        const sent =
          to === "anthropic" || to === "gemini"
            ? text.includes(`"${mediaType}"`)
            : text.includes(`data:${mediaType};base64,${digits}`);
        assert.ok(sent && text.includes(digits), `${to}: ${text}`);
      }
    }
  });

  it("bytes of no known image type: dropped and listed for a target that needs a type", () => {
    const unknown = b64("not an image at all");
    for (const to of targets) {
      const out = convert(chain(unknown), { from: "aisdk", to });
      assert.ok(!JSON.stringify(out.messages).includes(unknown), to);
      assert.ok(
        out.changes.some((c) => c.change === "droppedMedia" && c.index === 0 && c.part === 1),
        to,
      );
    }
  });
});
