// Node entry of `contextfold/summarizers`: the same adapters, and `aiSdk` without
// `options.generateText` keeps importing it from the optional peer dependency `ai` at
// its first call, as it always did in Node (where `import()` finds `ai` in node_modules).
// Other runtimes get summarizers.js, which has no `import()` of a computed name: a
// bundler cannot include what it names, and workerd refuses to load a bundle holding one.
import { aiSdk as adapter, SummarizerError } from "./summarizers.js";

export * from "./summarizers.js";

// A computed name, so that Node bundlers (the `node` condition) leave it to run time
// instead of requiring `ai` from apps that never call this.
const aiModule = "ai";

/** @type {Promise<import("./summarizers.js").AiSdkOptions["generateText"]> | undefined} */
let loading;

/** `generateText` of `ai`, imported at the first call. @param {any} call */
async function generateTextOfAi(call) {
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ aiModule).then(
    (mod) => mod.generateText,
    (error) => {
      throw new SummarizerError(
        `aiSdk: the optional peer dependency "ai" could not be imported (install it; in bundled code ` +
          `import { aiSdk } from "contextfold/summarizers/ai-sdk", or pass options.generateText): ` +
          `${String(error?.message ?? error)}`,
        { code: "model", provider: "ai-sdk" },
      );
    },
  );
  const generateText = await loading;
  return /** @type {NonNullable<typeof generateText>} */ (generateText)(call);
}

/** @type {typeof import("./summarizers.js").aiSdk} */
export function aiSdk(options) {
  const given = options !== null && typeof options === "object" && !Array.isArray(options);
  if (!given || options.generateText !== undefined) return adapter(options);
  return adapter({ ...options, generateText: generateTextOfAi });
}
