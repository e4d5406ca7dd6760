// `contextfold/summarizers/ai-sdk`: the `aiSdk` summarizer of `contextfold/summarizers`
// with `generateText` imported from `ai` by name, so that a bundler (wrangler, Vite,
// webpack, Next.js) includes `ai` in the apps that use it, and only in those.
import { generateText } from "ai";
import { aiSdk as adapter } from "./summarizers.js";

export { isContextfoldError } from "./errors.js";

/** @type {typeof import("./summarizers.js").aiSdk} */
export function aiSdk(options) {
  const given = options !== null && typeof options === "object" && !Array.isArray(options);
  if (!given || options.generateText !== undefined) return adapter(options);
  // The adapter's call is a subset of what `generateText` takes (its model type is looser).
  return adapter({ ...options, generateText: /** @type {any} */ (generateText) });
}
