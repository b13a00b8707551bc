// The admin API as the page calls it: the key travels as a Bearer header (never in a URL), and
// SSE is read with fetch because EventSource cannot send headers.

/** An error answer of the admin API. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A client of /admin/v1 with `key`. */
export function createApi(key) {
  const headers = { authorization: `Bearer ${key}` };
  async function request(path, accept) {
    const res = await fetch(path, { headers: { ...headers, accept } });
    const text = await res.text();
    if (!res.ok) {
      let message = res.statusText;
      try {
        message = JSON.parse(text).error.message;
      } catch {
        /* not our envelope */
      }
      throw new ApiError(res.status, message);
    }
    return text;
  }
  return {
    /** GET a JSON resource. */
    async get(path) {
      return JSON.parse(await request(path, 'application/json'));
    },
    /** GET a text resource (exports). */
    text(path) {
      return request(path, 'text/plain, */*');
    },
    /** Follows an SSE resource until `signal` aborts; `onEvent(name, data)` per event. */
    stream(path, onEvent, signal) {
      const run = async () => {
        const res = await fetch(path, { headers: { ...headers, accept: 'text/event-stream' }, signal });
        if (!res.ok || !res.body) throw new ApiError(res.status, res.statusText);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let name = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) name = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) onEvent(name, JSON.parse(data));
          }
        }
      };
      return run().catch((err) => {
        if (!signal.aborted) console.warn('stream ended', path, err);
      });
    },
  };
}
