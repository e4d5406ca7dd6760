// Node entry of `contextfold/langchain`: the package's Node entry instantiates the wasm on
// import, so the middleware is ready without an `init()`.
import "./node.js";

export * from "./langchain.js";
