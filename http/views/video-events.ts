import type { VideoJobEventSchema } from '../../protocols/video.js';
import { microsToUsd } from '../../protocols/money.js';
import { sseEvent } from '../../protocols/sse.js';
import type { Follower } from '../../runtime/host/actor-host.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import type { z } from 'zod';
import type { Exchange } from '../exchange.js';
import { resumeFrom, streamSse } from '../sse-stream.js';
import type { UrlSigner } from './video-view.js';

const ENDING = new Set(['completed', 'failed', 'cancelled']);

/** One logged job event on the wire: `{seq, type, ts, data}` with money in USD and, on completion, a fresh signed URL. */
export function videoEventWire(entry: LogEvent, sign: UrlSigner): z.output<typeof VideoJobEventSchema> {
  const { seq, ts, data } = entry;
  const type = entry.type as z.output<typeof VideoJobEventSchema>['type'];
  switch (entry.type) {
    case 'progress':
      return { seq, type, ts, data: { progress: data.progress } };
    case 'completed': {
      const link = sign(String(data.mediaId));
      return {
        seq,
        type,
        ts,
        data: {
          price_usd: microsToUsd(Number(data.priceMicros)),
          our_cost_usd: microsToUsd(Number(data.costMicros)),
          bytes: data.bytes,
          url: link.url,
          url_expires_at: Math.floor(link.expiresAt / 1000),
        },
      };
    }
    case 'failed':
      return { seq, type, ts, data: { code: data.code, message: data.message } };
    case 'cancelled':
      return { seq, type, ts, data: { reason: data.reason ?? null } };
    default:
      return { seq, type, ts, data: {} };
  }
}

/**
 * Streams a job's events over SSE from `after` (or a later Last-Event-ID): committed history,
 * then live events (`id:` is the seq, so a client resumes where it stopped), heartbeats while
 * quiet, and the end after `completed`, `failed` or `cancelled`.
 */
export function followVideoJob(
  ex: Exchange,
  jobId: string,
  after: number,
  follow: (from: number, follower: Follower) => () => void,
  sign: UrlSigner,
): void {
  streamSse(ex, `video job ${jobId}`, (push, close) =>
    follow(resumeFrom(ex, after), {
      event: (entry) => {
        push(sseEvent(entry.type, entry.seq, videoEventWire(entry, sign)));
        if (ENDING.has(entry.type)) close();
      },
      end: close,
    }),
  );
}
