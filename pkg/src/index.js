// The public API, the same on every runtime. Each entry file (node.js, workerd.js,
// web.js) re-exports this module after arranging for the wasm instance to exist.
// The glue's functions come guarded (glue.js: `not_initialized` before the wasm exists);
// the functions of api.js take precedence over the raw exports of the same name.
// Test hooks and the Worker middleware's internals are in internal.js, not here.
export {
  defaultSettings,
  estimateTokens,
  formats,
  initSync,
  providerOf,
} from "./glue.js";
export {
  compact,
  needsCompaction,
  parseChain,
  validateChain,
  measureChain,
  repairChain,
  convert,
  normalizeToolCallIds,
  clearReasoning,
  extractiveSummarizer,
} from "./api.js";
export { History } from "./history.js";
export { isContextfoldError } from "./errors.js";
export { cachedSummarizer, cacheApiCache, kvCache, memoryCache, summaryCacheKey } from "./cache.js";
