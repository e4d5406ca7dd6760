// app/api/chat/route.js: compacts the history a chat client posts before it goes to the
// model. Server code gets the package's Node entry: nothing to initialize.
import { compact } from "contextfold";

export async function POST(request) {
  const { messages } = await request.json();
  const { messages: compacted, report } = await compact(messages, { maxTokens: 2000 });
  // Here `compacted` would go to the model; this recipe answers with it.
  return Response.json({ messages: compacted, tokens: [report.before.tokens, report.after.tokens] });
}
