/** What `promise` settles to within a second: the error it rejects with, or a string. */
export async function outcome(promise) {
  const timeout = new Promise((resolve) => setTimeout(() => resolve("never settled"), 1000).unref());
  return Promise.race([
    promise.then(
      () => "resolved",
      (e) => e,
    ),
    timeout,
  ]);
}
