// Vite: no plugin needed; the production build emits the .wasm the glue names.
export default { build: { outDir: "dist/vite", emptyOutDir: true } };
