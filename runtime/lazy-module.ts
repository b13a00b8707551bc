/**
 * A module loaded on first use, once: heavy libraries that most processes never need (image
 * codecs, payment and mail SDKs, the MCP SDK) stay out of the start-up footprint. The first
 * caller pays the import; a failed import is retried by the next caller.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () =>
    (loading ??= load().catch((err: unknown) => {
      loading = null;
      throw err;
    }));
}
