// The one error type of the package: what every entry throws, or rejects with, on bad
// input, bad options or a failed compaction (pkg/src/errors.js makes those of the JS
// layer, crates/contextfold-wasm/src/error.rs those of the core).
import type { SummarizeError } from "../glue/contextfold_wasm.js";

/**
 * The stable `code` of a `ContextfoldError`. Open-ended (`string & {}`) so that a code
 * added in a later version is no type error; the names here are every code this version
 * throws (tests/node/errors.test.mjs checks them against the sources).
 */
export type ContextfoldErrorCode =
    // Options
    | "invalid_option"
    | "invalid_template"
    // Input that is not a chain
    | "invalid_json"
    | "invalid_text"
    | "invalid_shape"
    | "unknown_format"
    | "unwritable"
    | "unsupported_shape"
    | "invalid_history"
    // A chain that breaks a rule (strict parsing, `parseChain` without `repair`)
    | "invalid_start"
    | "system_after_start"
    | "consecutive_human"
    | "unexpected_tool"
    | "missing_tool_result"
    | "unmatched_tool_result"
    | "duplicate_tool_result"
    | "duplicate_tool_call_id"
    | "invalid_part"
    | "wrong_role"
    | "empty_body_pair"
    | "no_such_section"
    | "tool_call_not_found"
    | "id_collision"
    // A compaction that gave no result
    | "summarizer_failed"
    | "cancelled"
    | "budget_exceeded"
    | "token_counter_failed"
    // The runtime
    | "not_initialized"
    | "unsupported_runtime"
    | "internal"
    | (string & {});

/**
 * What the package throws: an `Error` named `"ContextfoldError"` with a stable `code` and
 * the `path` of the culprit (`"[2]"`, `"[3].parts[1]"`, `"options.maxTokens"`; `undefined`
 * when no single place is at fault).
 */
export interface ContextfoldError extends Error {
    name: "ContextfoldError";
    code: ContextfoldErrorCode;
    path: string | undefined;
    /** With code `summarizer_failed` (`onError: "throw"`): every failed summary call. */
    errors?: SummarizeError[] | undefined;
}

/**
 * Whether `value` is an error the package threw (`name === "ContextfoldError"` and a string
 * `code`), whichever copy of the package or wasm instance made it.
 *
 * @example
 * ```ts
 * try { await compact(chain, options); } catch (e) { if (isContextfoldError(e)) console.log(e.code, e.path); }
 * ```
 */
export declare function isContextfoldError(value: unknown): value is ContextfoldError;
