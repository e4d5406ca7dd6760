// The one error shape of the package on the JS side, the same as the wasm side throws:
// an `Error` named "ContextfoldError" with a stable `code` and the `path` of the culprit.

/**
 * @param {string} code
 * @param {string} message
 * @param {string | undefined} path
 * @returns {Error & { code: string, path: string | undefined }}
 */
export function contextfoldError(code, message, path) {
  const error = /** @type {Error & { code: string, path: string | undefined }} */ (new Error(message));
  error.name = "ContextfoldError";
  error.code = code;
  error.path = path;
  return error;
}

/**
 * Duck-typed, not `instanceof`: errors come from the wasm glue and from this layer, and
 * a bundle may hold two copies of the package.
 * @type {typeof import("./contextfold-error.js").isContextfoldError}
 */
export function isContextfoldError(value) {
  return (
    value instanceof Error && value.name === "ContextfoldError" && typeof (/** @type {any} */ (value).code) === "string"
  );
}
