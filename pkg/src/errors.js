// The one error shape of the package on the JS side, the same as the wasm side throws:
// an `Error` named "ContextfoldError" with a stable `code` and the `path` of the culprit.

export function contextfoldError(code, message, path) {
  const error = new Error(message);
  error.name = "ContextfoldError";
  error.code = code;
  error.path = path;
  return error;
}
