/** URL of a file in fixtures/, for readFileSync. */
export function fixture(name: string): URL {
  return new URL(`../fixtures/${name}`, import.meta.url);
}
