// Next.js: no configuration needed (the server resolves the Node entry, the client the
// browser entry; both emit the .wasm the package names).
export default {};
