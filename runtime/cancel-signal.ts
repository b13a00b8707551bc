/**
 * What work watches to stop when its caller goes: an AbortSignal, or a {@link CancelSource}, which
 * has the members work uses (`aborted`, `reason`, `throwIfAborted`, add and remove an `abort`
 * listener) without being an EventTarget. Node's AbortController is one (an EventTarget with its
 * listener records, ~1.3 µs to make, more to collect), and every request needs a way to be
 * cancelled while almost none is: the exchange and a simple run hand out CancelSources, and a real
 * AbortSignal is made only where an API asks for one (issue 28: about 10 % of a proxied request's CPU).
 */
export type CancelSignal = AbortSignal | CancelSource;

/** A listener of a {@link CancelSignal}: a function or an object with `handleEvent`, called once with no event. */
type Listener = (() => void) | { handleEvent(): void };

const call = (listener: Listener) => (typeof listener === 'function' ? listener() : listener.handleEvent());

/**
 * A light AbortController and its signal in one: `abort()` calls each listener once (in the order
 * added) and aborts the AbortSignal it handed out, if any. Listeners are always once-only, as an
 * abort happens once.
 */
export class CancelSource {
  aborted = false;
  /** Why it was aborted (undefined until then), as an AbortSignal's `reason`. */
  reason: unknown = undefined;
  /** One listener without an array (the usual case: the run a request started), then an array. */
  #first: Listener | null = null;
  #more: Listener[] | null = null;
  #controller: AbortController | null = null;

  /** Calls `listener` when aborted (never if it already was: check `aborted` first, as with an AbortSignal). */
  addEventListener(_type: 'abort', listener: Listener, _options?: { once?: boolean }): void {
    if (this.aborted) return;
    if (this.#first === null) this.#first = listener;
    else (this.#more ??= []).push(listener);
  }

  /** Forgets `listener` (its first registration). */
  removeEventListener(_type: 'abort', listener: Listener): void {
    if (this.#first === listener) {
      // The next one moves up, so listeners are still called in the order they were added.
      this.#first = this.#more?.shift() ?? null;
      return;
    }
    const index = this.#more?.indexOf(listener) ?? -1;
    if (index >= 0) this.#more!.splice(index, 1);
  }

  /** Throws `reason` when aborted, as an AbortSignal's `throwIfAborted`. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** An AbortSignal that aborts with this one (and its reason), made on first read (already aborted if this is). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /**
   * Aborts with `reason` (by default an `AbortError` DOMException, as AbortController's): the
   * AbortSignal handed out (if any), then every listener, once.
   */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.reason);
    const first = this.#first;
    const more = this.#more;
    this.#first = null;
    this.#more = null;
    if (first) call(first);
    if (more) for (const listener of more) call(listener);
  }
}

/** The AbortSignal of `cancel`, for APIs that take only one (a CancelSource makes it then). */
export function abortSignalOf(cancel: CancelSignal): AbortSignal {
  return cancel instanceof CancelSource ? cancel.signal : cancel;
}
