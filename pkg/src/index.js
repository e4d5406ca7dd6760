// The public API, the same on every runtime. Each entry file (node.js, workerd.js,
// web.js) re-exports this module after arranging for the wasm instance to exist.
// The glue's functions come guarded (glue.js: `not_initialized` before the wasm exists);
// the functions of api.js take precedence over the raw exports of the same name.
export { estimateTokens, extractiveSummarizer, initSync, start, __contextfoldPanicForTests } from "./glue.js";
// Internal, for the Worker middleware (worker.js reads them off this module): left out of the typings.
export { __checkOptionKeys, __requestBodySpans } from "./glue.js";
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
  __contextfoldAsyncPanicForTests,
} from "./api.js";
export { History } from "./history.js";
export { cachedSummarizer, cacheApiCache, kvCache, memoryCache, summaryCacheKey } from "./cache.js";
