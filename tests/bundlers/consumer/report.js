// Browser pages: the checks' outcome goes to `window.contextfoldResult` for the test.
export function report(outcome) {
  outcome.then(
    (result) => (window.contextfoldResult = { result }),
    (error) => (window.contextfoldResult = { error: String(error?.stack ?? error) }),
  );
}
