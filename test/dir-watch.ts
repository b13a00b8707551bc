import { readdirSync, watch } from 'node:fs';

/**
 * Resolves once the names in `dir` satisfy `holds`, re-checked on every change the kernel reports
 * (inotify), so a test waits for the disk event itself instead of sleeping and polling. Rejects
 * after `ms` as a safety net, naming `what`.
 */
export async function untilDir(
  dir: string,
  holds: (names: string[]) => boolean,
  what: string,
  ms = 5000,
): Promise<void> {
  const watcher = watch(dir);
  try {
    // Watching first, then checking: no change between the two can be missed.
    if (holds(readdirSync(dir))) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting until ${what}`)), ms);
      const settle = (err?: Error) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      watcher.on('change', () => {
        if (holds(readdirSync(dir))) settle();
      });
      watcher.on('error', settle);
    });
  } finally {
    watcher.close();
  }
}
