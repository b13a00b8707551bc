import { VIDEO_COST_PER_SECOND_MICROS } from '../../protocols/pricing.js';
import type { Clock } from '../../runtime/clock.js';
import { RetryableError, TerminalError } from '../errors.js';
import { FfmpegError } from '../ffmpeg/ffmpeg.js';
import { randomBytes } from 'node:crypto';
import type { RemoteVideoJob, VideoBackend, VideoPoll, VideoSpec } from '../video-generation.js';
import { renderSimVideo } from './sim-video-render.js';

/** The sim's job-time model and the clock it runs on. */
export interface SimVideoOptions {
  clock: Clock;
  /** Seconds of work per second of clip (`SVC_SIM_VIDEO_SECONDS_PER_SECOND`); 0 finishes at the first poll. */
  secondsPerSecond: number;
}

/** Scripted behaviours from `metadata.sim` (documented in docs/video.md). */
function scriptOf(script: VideoSpec['script']): {
  fail?: 'unavailable' | 'timeout' | 'error';
  failAtProgress: number | null;
  secondsPerSecond: number | null;
} {
  const fail = script?.fail;
  const at = script?.fail_at_progress;
  const pace = script?.seconds_per_second;
  return {
    fail: fail === 'unavailable' || fail === 'timeout' || fail === 'error' ? fail : undefined,
    failAtProgress: typeof at === 'number' && at >= 0 && at <= 100 ? at : null,
    secondsPerSecond: typeof pace === 'number' && pace >= 0 && pace <= 3600 ? pace : null,
  };
}

/**
 * The embedded video backend. A job "runs" at the sim for `durationSeconds × secondsPerSecond`
 * of clock time from its start, whatever this process does meanwhile: progress is read from the
 * clock, so a job outlives a restart exactly like a remote one. Once complete, `download`
 * renders a real H.264 MP4 with ffmpeg (deterministic from prompt and seed). `metadata.sim`
 * scripts a failed submit (`fail`), a job that fails at some progress (`fail_at_progress`) or
 * one job's own pace (`seconds_per_second`, instead of the configured one).
 */
export function createSimVideoBackend(options: SimVideoOptions): VideoBackend {
  const rates = VIDEO_COST_PER_SECOND_MICROS.sim;
  const costMicros = (spec: VideoSpec) => rates[spec.tier] * spec.durationSeconds;
  const expectedMs = (spec: VideoSpec) =>
    Math.round(spec.durationSeconds * (scriptOf(spec.script).secondsPerSecond ?? options.secondsPerSecond) * 1000);
  return {
    name: 'sim',
    costMicros,
    expectedMs,
    submit(spec, _key, signal): Promise<RemoteVideoJob> {
      signal.throwIfAborted();
      const { fail } = scriptOf(spec.script);
      if (fail === 'unavailable')
        return Promise.reject(
          new RetryableError('sim video backend: scripted outage (metadata.sim.fail)', 'upstream_unavailable'),
        );
      if (fail === 'timeout')
        return Promise.reject(
          new RetryableError('sim video backend: scripted timeout (metadata.sim.fail)', 'upstream_timeout'),
        );
      if (fail === 'error')
        return Promise.reject(
          new TerminalError('sim video backend: scripted failure (metadata.sim.fail)', 'upstream_error'),
        );
      return Promise.resolve({ id: `simvid_${randomBytes(9).toString('base64url')}`, startedAt: options.clock.now() });
    },
    poll(job, spec): Promise<VideoPoll> {
      const total = expectedMs(spec);
      const elapsed = options.clock.now() - job.startedAt;
      const progress = total <= 0 ? 100 : Math.min(100, Math.floor((elapsed / total) * 100));
      const { failAtProgress } = scriptOf(spec.script);
      if (failAtProgress !== null && progress >= failAtProgress)
        return Promise.resolve({
          state: 'failed',
          code: 'generation_failed',
          message: `sim video backend: scripted failure at ${failAtProgress}% (metadata.sim.fail_at_progress)`,
        });
      if (progress >= 100) return Promise.resolve({ state: 'completed', costMicros: costMicros(spec) });
      return Promise.resolve({ state: 'running', progress });
    },
    async download(_job, spec, signal) {
      try {
        return await renderSimVideo(spec, signal);
      } catch (err) {
        signal.throwIfAborted();
        if (err instanceof FfmpegError && err.kind === 'missing')
          throw new RetryableError(
            'sim video backend: ffmpeg is not installed on this server',
            'upstream_unavailable',
            null,
            { cause: err },
          );
        throw new TerminalError(
          `sim video backend: rendering failed: ${err instanceof Error ? err.message : String(err)}`,
          'upstream_error',
          { cause: err },
        );
      }
    },
    cancel: () => Promise.resolve(),
  };
}
