// Vite: no plugin needed; the production build emits the .wasm the glue names. A second
// page imports `contextfold/wasm?url` and hands the URL to `init`.
export default {
  build: {
    outDir: "dist/vite",
    emptyOutDir: true,
    rollupOptions: { input: { main: "index.html", wasm: "wasm-url.html" } },
  },
};
