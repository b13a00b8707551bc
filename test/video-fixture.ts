import { SseDecoder } from '../protocols/sse-decoder.js';

/** One job event as the SSE route sends it. */
export interface JobEvent {
  seq: number;
  type: string;
  data: Record<string, any>;
}

/**
 * Follows a video job's events over SSE (`GET {base}/{id}/events`) from the start, until one
 * matches `until` (then stops reading) or the server ends the stream after the job's ending
 * event. Event-driven: the test waits on the server, never on a timer.
 */
export async function followJob(
  url: string,
  token: string,
  id: string,
  until?: (event: JobEvent) => boolean,
  base = '/v1/videos/generations',
): Promise<JobEvent[]> {
  const res = await fetch(`${url}${base}/${id}/events?after=-1`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`events answered ${res.status}: ${await res.text()}`);
  const events: JobEvent[] = [];
  let stop = false;
  const decoder = new SseDecoder((event) => {
    if (stop || !event.event) return;
    const parsed = JSON.parse(event.data) as JobEvent;
    events.push(parsed);
    if (until?.(parsed)) stop = true;
  });
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    decoder.push(value);
    if (stop) {
      await reader.cancel();
      return events;
    }
  }
}

/** The JSON body a job-creating request sends: a short clip with a seed, unique by `tag`. */
export function clipBody(tag: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { prompt: `a paper boat on a pond ${tag}`, duration_seconds: 1, size: '320x240', seed: 5, ...extra };
}
