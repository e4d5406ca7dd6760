// The chain shapes contextfold reads and writes, one per format, as structural types:
// what the writers produce is assignable to the official SDK types (`openai`'s
// `ChatCompletionMessageParam`, `@anthropic-ai/sdk`'s `MessageParam`, `@google/genai`'s
// `Content`, `ai`'s `ModelMessage` / `UIMessage`) without depending on those packages
// (tests/types/sdk.ts checks it against them). `compact` and the edits give back the
// caller's own type; these types type what has no input type to follow: `convert`'s
// output (by `to`) and JSON text input (by `format`). Extra provider fields (e.g.
// `cache_control`) are kept at run time but not declared.
import type { ChainFormat, NativeMessage } from "../glue/contextfold_wasm.js";

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

// ---- OpenAI Chat Completions ------------------------------------------------------

export interface OpenAITextPart {
    type: "text";
    text: string;
}
export type OpenAIUserPart =
    | OpenAITextPart
    | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
    | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
    | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } };
export type OpenAIToolCall =
    | { id: string; type: "function"; function: { name: string; arguments: string } }
    /** A custom tool's call: its free-text `input` is the call's arguments. */
    | { id: string; type: "custom"; custom: { name: string; input: string } };
/** An OpenAI Chat Completions message (`ChatCompletionMessageParam`). */
export type OpenAIChatMessage =
    | { role: "system" | "developer"; content: string | OpenAITextPart[]; name?: string }
    | { role: "user"; content: string | OpenAIUserPart[]; name?: string }
    | {
          role: "assistant";
          content?: string | Array<OpenAITextPart | { type: "refusal"; refusal: string }> | null;
          refusal?: string | null;
          name?: string;
          tool_calls?: OpenAIToolCall[];
      }
    | { role: "tool"; content: string | OpenAITextPart[]; tool_call_id: string };
/**
 * An OpenAI Chat Completions request body (`ChatCompletionCreateParams`): its system
 * messages are in `messages`; its other fields (`model`, `tools`, ...) are kept as they came.
 */
export interface OpenAIChatRequest {
    messages: OpenAIChatMessage[];
    [key: string]: unknown;
}

// ---- Anthropic Messages -----------------------------------------------------------

export interface AnthropicTextBlock {
    type: "text";
    text: string;
}
export interface AnthropicImageBlock {
    type: "image";
    source:
        | { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string }
        | { type: "url"; url: string };
}
export interface AnthropicDocumentBlock {
    type: "document";
    source:
        | { type: "base64"; media_type: "application/pdf"; data: string }
        | { type: "text"; media_type: "text/plain"; data: string }
        | { type: "url"; url: string };
    title?: string | null;
}
export type AnthropicContentBlock =
    | AnthropicTextBlock
    | AnthropicImageBlock
    | AnthropicDocumentBlock
    | { type: "thinking"; thinking: string; signature: string }
    | { type: "redacted_thinking"; data: string }
    | { type: "tool_use"; id: string; name: string; input: unknown }
    | {
          type: "tool_result";
          tool_use_id: string;
          content?: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock>;
          is_error?: boolean;
      };
/** An Anthropic Messages message (`MessageParam`). */
export interface AnthropicMessage {
    role: "user" | "assistant";
    content: string | AnthropicContentBlock[];
}
/**
 * An Anthropic request: the system prompt in `system`. Fields that are not messages
 * (`model`, `max_tokens`, `tools`, ...) are kept as they came.
 */
/** A Messages request body; its other fields (`model`, `tools`, `thinking`...) go through as they are. */
export interface AnthropicRequest {
    system?: string | AnthropicTextBlock[];
    messages: AnthropicMessage[];
    [key: string]: unknown;
}

// ---- Gemini -----------------------------------------------------------------------

/** A Gemini part (`Part`): one of its fields is set. */
export interface GeminiPart {
    text?: string;
    thought?: boolean;
    thoughtSignature?: string;
    inlineData?: { mimeType?: string; data?: string; displayName?: string };
    fileData?: { mimeType?: string; fileUri?: string; displayName?: string };
    functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
    functionResponse?: {
        id?: string;
        name?: string;
        response?: Record<string, unknown>;
        parts?: Array<{
            inlineData?: { mimeType?: string; data?: string };
            fileData?: { mimeType?: string; fileUri?: string };
        }>;
    };
}
/** A Gemini content (`Content`). */
export interface GeminiContent {
    role?: "user" | "model";
    parts?: GeminiPart[];
}
type GeminiSystemInstruction = string | { role?: string; parts?: Array<{ text?: string }> };
/**
 * A Gemini request: the REST form, the system prompt in `systemInstruction`, or the
 * `@google/genai` SDK's `GenerateContentParameters`, the system prompt in
 * `config.systemInstruction` (where it stays). Fields that are not contents
 * (`generationConfig`, `tools`, `config`'s others, ...) are kept as they came.
 */
/**
 * A `generateContent` body (REST: `systemInstruction` and `cachedContent` at the top) or
 * `@google/genai` parameters (`model`, and `config` holding them). With a context cache
 * (`cachedContent`) summaries go into `contents`: Gemini refuses a system instruction
 * beside a cache. The other fields go through as they are.
 */
export interface GeminiRequest {
    systemInstruction?: GeminiSystemInstruction;
    cachedContent?: string;
    model?: string;
    config?: { systemInstruction?: GeminiSystemInstruction; cachedContent?: string; [key: string]: unknown };
    /**
     * The contents, or as `@google/genai` also takes them (`ContentListUnion`): one
     * content, or one part, a string or a list of parts and strings, which stand for one
     * user content. The other forms come back as an array when the chain changes.
     */
    contents: GeminiContent[] | GeminiContent | GeminiPart | string | Array<GeminiPart | string>;
    [key: string]: unknown;
}

// ---- Vercel AI SDK ----------------------------------------------------------------

type ProviderOptions = Record<string, JsonObject>;
export interface AiSdkTextPart {
    type: "text";
    text: string;
    providerOptions?: ProviderOptions;
}
export interface AiSdkFilePart {
    type: "file";
    data:
        | string
        | { type: "data"; data: string }
        | { type: "text"; text: string }
        | { type: "reference"; reference: Record<string, string> };
    mediaType: string;
    filename?: string;
    providerOptions?: ProviderOptions;
}
export interface AiSdkImagePart {
    type: "image";
    image: string;
    mediaType?: string;
    providerOptions?: ProviderOptions;
}
export interface AiSdkToolCallPart {
    type: "tool-call";
    toolCallId: string;
    toolName: string;
    input: unknown;
    providerOptions?: ProviderOptions;
    providerExecuted?: boolean;
}
export interface AiSdkToolResultPart {
    type: "tool-result";
    toolCallId: string;
    toolName: string;
    output:
        | { type: "text" | "error-text"; value: string }
        | { type: "json" | "error-json"; value: JsonValue }
        | { type: "execution-denied"; reason?: string; providerOptions?: ProviderOptions }
        | {
              type: "content";
              value: Array<
                  | { type: "text"; text: string }
                  | { type: "file"; data: { type: "data"; data: string }; mediaType: string; filename?: string }
              >;
          };
    providerOptions?: ProviderOptions;
}
/** A call of a tool with `needsApproval`, waiting for the user's answer (kept verbatim). */
export interface AiSdkToolApprovalRequest {
    type: "tool-approval-request";
    approvalId: string;
    toolCallId: string;
    reason?: string;
    isAutomatic?: boolean;
    signature?: string;
    inputSchemaInput?: unknown;
}
/** The user's answer to an approval request, in a tool message (kept verbatim). */
export interface AiSdkToolApprovalResponse {
    type: "tool-approval-response";
    approvalId: string;
    approved: boolean;
    reason?: string;
    providerExecuted?: boolean;
}
/** A Vercel AI SDK `ModelMessage` (what `generateText({ messages })` takes). */
export type AiSdkModelMessage =
    | { role: "system"; content: string; providerOptions?: ProviderOptions }
    | {
          role: "user";
          content: string | Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart>;
          providerOptions?: ProviderOptions;
      }
    | {
          role: "assistant";
          content:
              | string
              | Array<
                    | AiSdkTextPart
                    | AiSdkFilePart
                    | { type: "reasoning"; text: string; providerOptions?: ProviderOptions }
                    | AiSdkToolCallPart
                    | AiSdkToolResultPart
                    | AiSdkToolApprovalRequest
                    | {
                          type: "reasoning-file";
                          data: string | { type: "data"; data: string };
                          mediaType: string;
                          providerOptions?: ProviderOptions;
                      }
                    | { type: "custom"; kind: `${string}.${string}`; providerOptions?: ProviderOptions }
                >;
          providerOptions?: ProviderOptions;
      }
    | {
          role: "tool";
          content: Array<AiSdkToolResultPart | AiSdkToolApprovalResponse>;
          providerOptions?: ProviderOptions;
      };

/** A part of a Vercel AI SDK `UIMessage`. */
export type AiSdkUIPart =
    | { type: "text" | "reasoning"; text: string; state?: "streaming" | "done" }
    | { type: "file"; mediaType: string; url: string; filename?: string }
    | { type: "step-start" }
    | {
          type: "dynamic-tool";
          toolName: string;
          toolCallId: string;
          state: "output-available";
          input: unknown;
          output: unknown;
      }
    | {
          type: "dynamic-tool";
          toolName: string;
          toolCallId: string;
          state: "output-error";
          input: unknown;
          errorText: string;
      };
/** A Vercel AI SDK `UIMessage` (what chat UIs hold). */
export interface AiSdkUIMessage {
    id: string;
    role: "system" | "user" | "assistant";
    parts: AiSdkUIPart[];
    metadata?: unknown;
}

// ---- LangChain --------------------------------------------------------------------

/** A LangChain message serialized by Python's `messages_to_dict`: `{ type, data }`. */
export interface LangChainDictMessage {
    type: "system" | "human" | "ai" | "tool" | "function" | "chat";
    data: { content: string | Array<{ type: string; [key: string]: unknown }>; [key: string]: unknown };
}
/** A LangChain message serialized by JS `toJSON()`: `{ lc: 1, type: "constructor", id, kwargs }`. */
export interface LangChainSerializedMessage {
    lc: 1;
    type: "constructor";
    id: string[];
    kwargs: { content: string | Array<{ type: string; [key: string]: unknown }>; [key: string]: unknown };
}
export type LangChainMessage = LangChainDictMessage | LangChainSerializedMessage;

// ---- OpenAI Responses API ---------------------------------------------------------

export type OpenAIResponsesInputContent =
    | { type: "input_text"; text: string }
    | {
          type: "input_image";
          image_url?: string | null;
          file_id?: string | null;
          detail: "low" | "high" | "auto" | "original";
      }
    | { type: "input_file"; file_data?: string; file_url?: string; file_id?: string | null; filename?: string };
/**
 * An OpenAI Responses API input item (`ResponseInputItem`) of the kinds contextfold
 * writes by itself. Items it read are written back as they came, provider-native ones
 * (web search, MCP, computer use, compaction, ...) included; a built-in tool's text
 * output that a strategy masked or summarized stays its own item type, with the new text
 * where the item holds it (`stdout`, `output`, `result`).
 */
export type OpenAIResponsesItem =
    | { type?: "message"; role: "user" | "system" | "developer"; content: string | OpenAIResponsesInputContent[] }
    | { type?: "message"; role: "assistant"; content: string }
    | {
          type: "shell_call_output";
          call_id: string;
          output: Array<{
              stdout: string;
              stderr: string;
              outcome: { type: "exit"; exit_code: number } | { type: "timeout" };
          }>;
      }
    | { type: "local_shell_call_output"; id: string; output: string }
    | { type: "apply_patch_call_output"; call_id: string; status: "completed" | "failed"; output?: string | null }
    | {
          type: "reasoning";
          id: string;
          summary: Array<{ type: "summary_text"; text: string }>;
          encrypted_content?: string | null;
      }
    | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string }
    | { type: "function_call_output"; call_id: string; output: string | OpenAIResponsesInputContent[] }
    | { type: "custom_tool_call"; call_id: string; name: string; input: string; id?: string }
    | { type: "custom_tool_call_output"; call_id: string; output: string | OpenAIResponsesInputContent[] };
/** A Responses request's history: `{ instructions?, input }` (other request fields kept). */
export interface OpenAIResponsesRequest {
    instructions?: string | null;
    input: string | OpenAIResponsesItem[];
    [key: string]: unknown;
}

// ---- By format --------------------------------------------------------------------

/** A chain in each format, in every container it comes in. */
export interface ChainOfFormat {
    native: NativeMessage[];
    openai: OpenAIChatMessage[] | OpenAIChatRequest;
    "openai-responses": OpenAIResponsesItem[] | OpenAIResponsesRequest;
    anthropic: AnthropicMessage[] | AnthropicRequest;
    gemini: GeminiContent[] | GeminiRequest;
    aisdk: AiSdkModelMessage[];
    "aisdk-ui": AiSdkUIMessage[];
    langchain: LangChainMessage[];
}
/** What `convert` writes in each format: OpenAI Chat as a list (a list has its system messages). */
export type ConvertedOfFormat = Omit<ChainOfFormat, "openai" | "gemini"> & {
    openai: OpenAIChatMessage[];
    gemini: GeminiContent[] | (GeminiRequest & { contents: GeminiContent[] });
};
/** A chain in `F` (every format for `"auto"`). */
export type ChainOf<F extends ChainFormat | "auto" | undefined> = F extends ChainFormat
    ? ChainOfFormat[F]
    : ChainOfFormat[ChainFormat];
/**
 * What a chain given as `T` comes back as: `T` itself (its format and container are
 * kept); for JSON text, the parsed chain of the `format` option (any format's when
 * auto-detected).
 */
export type Chain<T, F extends ChainFormat | "auto" | undefined = undefined> = T extends string ? ChainOf<F> : T;

// ---- The exports that take a chain, typed by it -------------------------------------
// (The raw wasm exports of the same names take `unknown`; these are the package's
// wrappers, pkg/src/api.js, whose results keep the input's type.)
import type {
    ClearReasoningResult,
    CompactOptions,
    CompactResult,
    ConvertOptions,
    ConvertResult,
    EditOptions,
    NormalizeResult,
    RepairOptions,
    RepairResult,
} from "../glue/contextfold_wasm.js";

/**
 * Compacts a conversation (see the README). `messages` comes back in its own format and
 * container, typed as given; JSON text comes back parsed, typed by `options.format`.
 */
export declare function compact<F extends ChainFormat>(
    messages: string,
    options: CompactOptions & { format: F },
): Promise<CompactResult<ChainOf<F>>>;
export declare function compact<T>(messages: T, options?: CompactOptions): Promise<CompactResult<Chain<T>>>;

/** Repairs a chain for its provider; the result is typed as the input. */
export declare function repairChain<F extends ChainFormat>(
    messages: string,
    options: RepairOptions & { format: F },
): RepairResult<ChainOf<F>>;
export declare function repairChain<T>(messages: T, options?: RepairOptions): RepairResult<Chain<T>>;

/** Rewrites tool-call ids that do not fit `template`; the result is typed as the input. */
export declare function normalizeToolCallIds<F extends ChainFormat>(
    messages: string,
    template: string,
    options: EditOptions & { format: F },
): NormalizeResult<ChainOf<F>>;
export declare function normalizeToolCallIds<T>(
    messages: T,
    template: string,
    options?: EditOptions,
): NormalizeResult<Chain<T>>;

/** Removes all reasoning; the result is typed as the input. */
export declare function clearReasoning<F extends ChainFormat>(
    messages: string,
    options: EditOptions & { format: F },
): ClearReasoningResult<ChainOf<F>>;
export declare function clearReasoning<T>(messages: T, options?: EditOptions): ClearReasoningResult<Chain<T>>;

/**
 * Converts a chain to the `to` format, typed by it: an array, or for Anthropic and Gemini
 * a request object when the chain has a system prompt (narrow with `Array.isArray`).
 */
export declare function convert<To extends ChainFormat>(
    messages: unknown,
    options: ConvertOptions & { to: To },
): ConvertResult<ConvertedOfFormat[To]>;
