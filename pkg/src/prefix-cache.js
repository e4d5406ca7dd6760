// The Worker middleware's prefix cache (issue 17): a stateless gateway gets the whole raw
// history on every request, and compacting it again each time costs a full read in wasm.
// In stable mode the compacted history of a request is that of the previous request with
// the new messages appended, as long as no new fold is due. So the compacted messages of
// each request are stored (in the middleware's cache store) under its conversation, with a
// SHA-256 of the raw history they stand for, as the client wrote it; a request whose raw
// history starts with a stored one, byte for byte, and fits the budget with its new
// messages appended, is answered from the store: no compaction, no summary, the same
// prefix upstream. Everything works on the body's bytes (the core gives the span of each
// message), so a hit costs two hashes and a splice, not a parse or a serialization.
//
// Keys: the conversation is the SHA-256 of the scope (format, strategy, budget,
// namespace), the chain's head (its system field) and the first two messages' bytes; the
// entry holds the hash of the whole raw prefix it was made from, checked before use, so a
// collision or an edited history can only miss, never serve another conversation's
// messages. An entry is one string: a JSON header line, then the compacted list's JSON.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const KEY_PREFIX = "prefix:";
/**
 * A hit stores the longer prefix only once this many messages were added since the stored
 * one: in between, later requests extend the same entry (a hash and a write saved per
 * request), and what they measure stays short.
 */
const RESTORE_AFTER = 16;

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of `head` and `bytes`: of their two digests, so the long part is not copied. */
async function sha256(head, bytes) {
  const [a, b] = await Promise.all([crypto.subtle.digest("SHA-256", head), crypto.subtle.digest("SHA-256", bytes)]);
  const both = new Uint8Array(64);
  both.set(new Uint8Array(a), 0);
  both.set(new Uint8Array(b), 32);
  return hex(await crypto.subtle.digest("SHA-256", both));
}

/**
 * A prefix cache over `store` (`get`/`put` of strings) for one request: its body `bytes`,
 * the span of its message list in them and the spans of each message (flat pairs from the
 * core), its chain's head (the system field, `null` without), and `scope`.
 */
export function prefixCache(store, { bytes, list, elements, head, scope }) {
  const count = elements.length / 2;
  const startOf = (i) => elements[2 * i];
  const endOf = (i) => elements[2 * i + 1];
  const headBytes = encoder.encode(`${JSON.stringify(scope)}\n${JSON.stringify(head)}\n`);
  /** The list's bytes from its `[` to the end of message `n - 1`. */
  const prefix = (n) => bytes.subarray(list[0], endOf(n - 1));
  const key = async () => `${KEY_PREFIX}${await sha256(headBytes, prefix(Math.min(2, count)))}`;
  const prefixHash = (n) => sha256(headBytes, prefix(n));

  async function put(rawTokens, tokens, listText) {
    const header = JSON.stringify({ count, hash: await prefixHash(count), rawTokens, tokens });
    try {
      await store.put(await key(), `${header}\n${listText}`);
    } catch {
      // A store that fails costs the next request a compaction, never this one its answer.
    }
  }

  return {
    /** Whether the request has enough messages to be keyed. */
    usable: count >= 3,

    /**
     * The compacted list's JSON text for this request from a stored prefix, when one
     * fits, with the token counts and whether the entry is worth storing anew: `{ listText,
     * before, after, stale }`, or `null`. `fits(tokens,
     * from)` gives the tokens of the messages from index `from` on, when the stored
     * `tokens` and they are within the budget, else `null`.
     */
    async lookup(fits) {
      let text;
      try {
        text = await store.get(await key());
      } catch {
        return null; // a store that fails is a miss
      }
      if (typeof text !== "string") return null;
      const newline = text.indexOf("\n");
      let entry;
      try {
        entry = JSON.parse(text.slice(0, newline));
      } catch {
        return null;
      }
      const { count: stored, hash, tokens, rawTokens } = entry ?? {};
      if (!Number.isInteger(stored) || stored < 1 || stored > count) return null;
      if ((await prefixHash(stored)) !== hash) return null;
      const added = fits(tokens, stored);
      if (added === null) return null;
      const kept = text.slice(newline + 1);
      const more = stored === count ? "" : decoder.decode(bytes.subarray(startOf(stored), endOf(count - 1)));
      const joiner = more === "" || kept === "[]" ? "" : ",";
      const listText = more === "" ? kept : `${kept.slice(0, -1)}${joiner}${more}]`;
      return { listText, before: rawTokens + added, after: tokens + added, stale: count - stored >= RESTORE_AFTER };
    },

    /** Stores the compacted list (`listText`) of this request, `rawTokens` -> `tokens` long. */
    store: put,
  };
}
