// Node twin of internal.js: the test hooks beside the Node entry, in the bundle the Node
// entries share (pkg/dist/), so that both reach one wasm instance.
import "./node.js";

export * from "./internal.js";
