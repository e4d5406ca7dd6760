// What Vite adds to imports: `?url` gives the URL of the emitted asset.
declare module "*?url" {
    const url: string;
    export default url;
}

// A side-effect CSS import: Vite injects it (dev) or bundles it (build).
declare module "*.css" {}
