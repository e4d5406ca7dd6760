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
