// The Worker middleware's prefix cache (issue 17): a stateless gateway gets the whole raw
// history on every request, and compacting it again each time costs a full read in wasm.
// In stable mode the compacted history of a request is that of the previous request with
// the new messages appended, as long as no new fold is due. So the compacted messages of
// each request are stored (in the middleware's cache store) under its conversation, with a
// SHA-256 of the raw history they stand for; a request whose raw history starts with a
// stored one, byte for byte, and fits the budget with its new messages appended, is
// answered from the store: no compaction, no summary, the same prefix upstream.
//
// Keys: the conversation is the SHA-256 of the request's head (its system field and first
// two messages) with the format, the strategy and the budget; the entry holds the hash of
// the whole raw prefix it was made from, checked before use, so a collision or an edited
// history can only miss, never serve another conversation's messages.

const encoder = new TextEncoder();
const KEY_PREFIX = "prefix:";

async function sha256(text) {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The list and the head (system field) of a chain as the middleware passes it to compact. */
function parts(input, listKey) {
  if (Array.isArray(input)) return { list: input, head: null, container: null };
  const { [listKey]: list, ...head } = input;
  return Array.isArray(list) ? { list, head, container: head } : null;
}

/**
 * A prefix cache over `store` (`get`/`put` of strings) for requests compacted with
 * `scope` (format, strategy, budget, namespace: what the compacted messages depend on).
 */
export function prefixCache(store, scope, listKey) {
  const conversationKey = async (list, head) =>
    `${KEY_PREFIX}${await sha256(JSON.stringify([scope, head, list.slice(0, 2)]))}`;
  const prefixHash = (texts, count, head) => sha256(`${JSON.stringify(head)}\n[${texts.slice(0, count).join(",")}]`);

  return {
    /**
     * The compacted chain for `input` from a stored prefix, when one fits: `{ messages,
     * before, after }` (token counts), or `null`. `fits(tokens, added)` gives the tokens of
     * the messages added since, when the stored `tokens` and they are within the budget,
     * else `null`.
     */
    async lookup(input, fits) {
      const split = parts(input, listKey);
      if (split === null || split.list.length < 3) return null;
      const { list, head, container } = split;
      const key = await conversationKey(list, head);
      const text = await store.get(key);
      if (typeof text !== "string") return null;
      let entry;
      try {
        entry = JSON.parse(text);
      } catch {
        return null;
      }
      const { count, hash, tokens, rawTokens, output } = entry ?? {};
      if (!Number.isInteger(count) || count > list.length || !Array.isArray(output)) return null;
      const texts = list.slice(0, count).map((m) => JSON.stringify(m));
      if ((await prefixHash(texts, count, head)) !== hash) return null;
      const added = list.slice(count);
      const addedTokens = fits(tokens, added);
      if (addedTokens === null) return null;
      const messages = [...output, ...added];
      return {
        messages: container === null ? messages : { ...container, [listKey]: messages },
        before: rawTokens + addedTokens,
        after: tokens + addedTokens,
      };
    },

    /** Stores `output`, the compacted chain of `input` (`rawTokens` -> `tokens` long). */
    async store(input, output, rawTokens, tokens) {
      const split = parts(input, listKey);
      const compacted = parts(output, listKey);
      if (split === null || compacted === null || split.list.length < 3) return;
      if (JSON.stringify(compacted.head) !== JSON.stringify(split.head)) return; // the head itself changed
      const { list, head } = split;
      const texts = list.map((m) => JSON.stringify(m));
      const hash = await prefixHash(texts, list.length, head);
      const entry = { count: list.length, hash, rawTokens, tokens, output: compacted.list };
      await store.put(await conversationKey(list, head), JSON.stringify(entry));
    },
  };
}
