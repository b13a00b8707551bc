import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../protocols/errors.js';
import type { BlobStore } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** The path signed media URLs are served under (`GET /v1/media/{media_id}?expires=…&signature=…`). */
export const MEDIA_URL_PATH = '/v1/media/';

/** A stored piece of generated media: who owns it, what it is, and until when it is kept. */
export interface MediaRecord {
  id: string;
  ownerId: string;
  kind: 'image' | 'video';
  contentType: string;
  bytes: number;
  createdAt: number;
  /** When the bytes are deleted (images behind URLs); null while their owner (a video job) keeps them. */
  expiresAt: number | null;
}

/** Bytes of a known size to stream, and what they are. */
export interface MediaContent {
  record: MediaRecord;
  size: number;
  chunks: AsyncIterable<Buffer>;
}

const SECRET_KEY = 'url-signing';
/** How often, at most, expired images are swept (on the next store after this long). */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Generated media on disk with signed, expiring URLs that work without a token. A URL is
 * `/v1/media/{id}?expires={unix seconds}&signature={HMAC-SHA256(secret, "GET /v1/media/{id}\n{expires}"), base64url}`.
 * The secret is 32 random bytes made at the first start and kept in the store (never the admin
 * key), so URLs survive restarts; a wrong signature is 403 `url_signature_invalid`, a past
 * `expires` 403 `url_expired`. Images behind URLs are deleted once their URLs have expired.
 */
export class MediaLinks {
  private readonly records: Table<MediaRecord>;
  private readonly secret: Buffer;
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.records = store.table<MediaRecord>('media');
    const keys = store.table<string>('media_keys');
    const stored =
      keys.get(SECRET_KEY) ??
      store.transactionSync(() => {
        const existing = keys.get(SECRET_KEY);
        if (existing) return existing;
        const fresh = randomBytes(32).toString('base64');
        void keys.put(SECRET_KEY, fresh);
        return fresh;
      });
    this.secret = Buffer.from(stored, 'base64');
  }

  /** Stores `bytes` as media `id` (the bytes first, then the record; a retried step writes both again). */
  async put(input: Omit<MediaRecord, 'bytes' | 'createdAt'> & { data: Buffer }): Promise<MediaRecord> {
    const { data, ...rest } = input;
    const record: MediaRecord = { ...rest, bytes: data.length, createdAt: this.clock.now() };
    await this.blobs.writeMedia(record.id, data);
    await this.records.put(record.id, record);
    if (this.clock.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = this.clock.now();
      void this.sweepExpired().catch((err: unknown) => this.logger.warn('media sweep failed', { err }));
    }
    return record;
  }

  /** Media `id` of `ownerId`, or undefined. */
  get(id: string, ownerId: string): MediaRecord | undefined {
    const record = this.records.get(id);
    return record && record.ownerId === ownerId ? record : undefined;
  }

  /** Media `id` and its bytes for its owner (a token-authenticated download); undefined when gone. */
  async content(id: string, ownerId: string): Promise<MediaContent | undefined> {
    const record = this.get(id, ownerId);
    return record ? this.contentOf(record) : undefined;
  }

  private async contentOf(record: MediaRecord): Promise<MediaContent | undefined> {
    const size = await this.blobs.mediaSize(record.id);
    return size === null ? undefined : { record, size, chunks: this.blobs.readMedia(record.id) };
  }

  /** Deletes media `id` (bytes and record). */
  async remove(id: string): Promise<void> {
    await this.blobs.removeMedia(id);
    await this.records.remove(id);
  }

  private signature(id: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`GET ${MEDIA_URL_PATH}${id}\n${expires}`).digest('base64url');
  }

  /** The signed URL of media `id` under `base` (scheme and host, no trailing slash), valid until `expiresAt` (ms). */
  url(base: string, id: string, expiresAt: number): string {
    const expires = Math.floor(expiresAt / 1000);
    return `${base}${MEDIA_URL_PATH}${encodeURIComponent(id)}?expires=${expires}&signature=${this.signature(id, expires)}`;
  }

  /**
   * The media a signed URL points to: 403 `url_signature_invalid` unless the signature matches
   * the id and expiry, 403 `url_expired` past it, 404 when the media is gone.
   */
  async open(id: string, expires: string | undefined, signature: string | undefined): Promise<MediaContent> {
    const seconds = expires !== undefined && /^\d{1,12}$/.test(expires) ? Number(expires) : null;
    if (seconds === null || !signature)
      throw new ApiError(
        'url_signature_invalid',
        'This media URL is not signed: use the URL exactly as the API returned it.',
        { param: 'signature' },
      );
    const expected = Buffer.from(this.signature(id, seconds));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ApiError(
        'url_signature_invalid',
        'The signature of this media URL does not match: use the URL exactly as the API returned it.',
        { param: 'signature' },
      );
    if (seconds * 1000 <= this.clock.now())
      throw new ApiError('url_expired', 'This media URL has expired: fetch the resource again for a fresh URL.', {
        param: 'expires',
      });
    const record = this.records.get(id);
    const content = record ? await this.contentOf(record) : undefined;
    if (!content) throw new ApiError('not_found', 'This media no longer exists.', { param: 'media_id' });
    return content;
  }

  /** Deletes images whose URLs have all expired; returns how many. */
  async sweepExpired(): Promise<number> {
    const now = this.clock.now();
    const expired: string[] = [];
    for (const { value } of this.records.getRange())
      if (value.expiresAt !== null && value.expiresAt <= now) expired.push(value.id);
    for (const id of expired) await this.remove(id);
    return expired.length;
  }
}
