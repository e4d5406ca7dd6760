// `contextfold/summarizers/ai-sdk`: `aiSdk` with `generateText` imported from `ai`.
export { aiSdk } from "./summarizers.js";
export type { AdapterSummarizer, AiSdkOptions, GenerateTextCall } from "./summarizers.js";
