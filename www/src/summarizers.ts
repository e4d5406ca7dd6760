// The summarizers the page offers besides the package's OpenAI-compatible adapter
// (`contextfold/summarizers`, used as is), and the wrapper that times every call for the
// timeline. contextfold calls a summarizer as `(request, { signal }) => Promise<string>`.
import { extractiveSummarizer, type Summarizer, type SummaryRequest } from "contextfold";

/** The built-in extractive summarizer, each call delayed: lets a person watch waves and cancel. */
export function slowedSummarizer(inner: Summarizer, delayMs: number): Summarizer {
  return async (request, context) => {
    await sleep(delayMs, context.signal);
    return inner(request, context);
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export { extractiveSummarizer };

/** One summarizer call as the timeline shows it; times in ms since the run started. */
export interface CallRecord {
  id: number;
  kind: SummaryRequest["kind"];
  wave: number;
  section: number | null;
  range: { start: number; end: number };
  transcriptBytes: number;
  targetBytes: number;
  start: number;
  end?: number;
  /** From the summarizer's promise, then from contextfold's own verdict (`onProgress`). */
  ok?: boolean;
  summaryBytes?: number;
  error?: string;
}

const encoder = new TextEncoder();

/** Wraps a summarizer so that every call's request, start and end are recorded. */
export function recordCalls(inner: Summarizer, started: number, onChange: () => void) {
  const calls: CallRecord[] = [];
  const summarizer: Summarizer = async (request, context) => {
    const call: CallRecord = {
      id: request.id,
      kind: request.kind,
      wave: request.wave,
      section: request.section,
      range: request.range,
      transcriptBytes: encoder.encode(request.transcript).length,
      targetBytes: request.targetBytes,
      start: performance.now() - started,
    };
    calls.push(call);
    onChange();
    // `end` and `ok` may already be set by contextfold's verdict (a timeout): keep them.
    try {
      const summary = await inner(request, context);
      call.ok ??= typeof summary === "string" && summary.trim() !== "";
      call.summaryBytes = typeof summary === "string" ? encoder.encode(summary).length : 0;
      return summary;
    } catch (error) {
      call.ok = false;
      call.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw error;
    } finally {
      call.end ??= performance.now() - started;
      onChange();
    }
  };
  return { summarizer, calls };
}
