// Declarations for the type check of pkg/src only (pkg/tsconfig.json); not shipped.
// workerd.js imports the .wasm as a module: wrangler's CompiledWasm rule makes it one.
declare module "*.wasm" {
    const module: WebAssembly.Module;
    export default module;
}
// edge.js imports it with `?module`: Next.js and Vercel's edge runtime make that a Module.
declare module "*.wasm?module" {
    const module: WebAssembly.Module;
    export default module;
}
