// Numbers in messages the engine rewrites (masked, converted, repaired) come back as the
// numbers the caller gave: every double exactly (serde_json's default float parse is off
// by an ulp for about one random double in seven), integers beyond 2^53 as `JSON.parse`
// reads them (they used to fail the call as an internal error), and a `__proto__` key as
// the object's own field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert } from "contextfold";

/** Doubles of every kind: 17-digit fractions, every exponent, integers past 2^53. */
function numbers() {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const out = [
    0.1,
    0.30000000000000004,
    1.5e-300,
    5e-324,
    1.7976931348623157e308,
    2 ** 53 + 2,
    12345678901234567000,
    -1e21,
  ];
  for (let i = 0; i < 600; i++) {
    const r = next() + next() / 2 ** 26;
    out.push(i % 3 === 0 ? r : i % 3 === 1 ? -r * 10 ** Math.floor(next() * 600 - 300) : Math.floor(r * 2 ** 64));
  }
  return out;
}

function sameNumbers(got, want) {
  assert.equal(got.length, want.length);
  const differ = want.filter((v, i) => !Object.is(got[i], v));
  assert.deepEqual(differ, [], `${differ.length} of ${want.length} numbers changed`);
}

describe("numbers in rewritten messages", () => {
  it("a masked tool message keeps its fields' numbers exactly", async () => {
    const values = numbers();
    const chain = [{ role: "user", content: "go" }];
    for (let i = 0; i < 3; i++) {
      chain.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: "{}" } }],
      });
      chain.push({ role: "tool", tool_call_id: `c${i}`, content: "output ".repeat(200), values });
    }
    chain.push({ role: "assistant", content: "done" });
    const { messages, changed } = await compact(chain, { strategy: { name: "mask", keepLast: 0 } });
    assert.equal(changed, true);
    assert.notEqual(messages[2], chain[2], "the tool message was rewritten");
    assert.match(messages[2].content, /masked/);
    sameNumbers(messages[2].values, values);
  });

  it("tool call arguments keep their numbers across formats", () => {
    const values = numbers();
    const input = { values, big: 12345678901234567000, tiny: 4.9406564584124654e-324 };
    const chain = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: JSON.stringify(input) } }],
      },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ];
    const anthropic = convert(chain, { from: "openai", to: "anthropic" }).messages;
    const use = anthropic[1].content.find((b) => b.type === "tool_use");
    sameNumbers(use.input.values, values);
    assert.equal(use.input.big, input.big);
    assert.equal(use.input.tiny, input.tiny);
    const back = convert(anthropic, { from: "anthropic", to: "openai" }).messages;
    sameNumbers(JSON.parse(back[1].tool_calls[0].function.arguments).values, values);
  });

  it("a __proto__ key in a rewritten message is its own field, not its prototype", async () => {
    const tool = JSON.parse('{"role":"tool","tool_call_id":"c0","content":"","meta":{"__proto__":{"polluted":true}}}');
    tool.content = "output ".repeat(200);
    const chain = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c0", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      tool,
      { role: "assistant", content: "done" },
    ];
    const { messages } = await compact(chain, { strategy: { name: "mask", keepLast: 0 } });
    assert.notEqual(messages[2], tool);
    const meta = messages[2].meta;
    assert.equal(Object.getPrototypeOf(meta), Object.prototype);
    assert.equal(meta.polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(meta, "__proto__")?.value, { polluted: true });
  });
});
