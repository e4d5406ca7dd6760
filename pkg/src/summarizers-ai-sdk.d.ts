// `contextfold/summarizers/ai-sdk`: `aiSdk` with `generateText` imported from `ai`.
export { aiSdk } from "./summarizers.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";
export type { AdapterSummarizer, AiSdkOptions, GenerateTextCall } from "./summarizers.js";
