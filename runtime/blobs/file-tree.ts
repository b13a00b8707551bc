import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Bounds of one tree read: more files or bytes than this is refused, not cut. */
export interface FileTreeLimits {
  maxFiles: number;
  maxBytes: number;
}

/** Why a tree could not be read whole: missing, too big, or holding something that is not a plain file. */
export class FileTreeError extends Error {
  override name = 'FileTreeError';
  constructor(
    message: string,
    readonly reason: 'missing' | 'too_large' | 'not_plain' | 'unreadable',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One file of a tree: its path relative to the root (with `/`), and what identifies this version of it. */
interface TreeStat {
  path: string;
  size: number;
  stamp: string;
}

const toSlash = (path: string) => path.split(sep).join('/');

async function walk(root: string, dir: string, limits: FileTreeLimits, out: TreeStat[]): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw new FileTreeError(
      `cannot list ${toSlash(relative(root, dir)) || '.'}`,
      code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable',
      { cause },
    );
  }
  for (const name of names) {
    const full = join(dir, name);
    const info = await lstat(full);
    const path = toSlash(relative(root, full));
    // A link could point anywhere on the machine: a tree holds plain files and directories only.
    if (info.isSymbolicLink()) throw new FileTreeError(`${path} is a symbolic link`, 'not_plain');
    if (info.isDirectory()) {
      await walk(root, full, limits, out);
      continue;
    }
    if (!info.isFile()) throw new FileTreeError(`${path} is not a plain file`, 'not_plain');
    out.push({ path, size: info.size, stamp: `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}` });
    if (out.length > limits.maxFiles) throw new FileTreeError(`more than ${limits.maxFiles} files`, 'too_large');
  }
}

/** Every plain file under `root`, sorted by path; throws {@link FileTreeError}. */
async function statTree(root: string, limits: FileTreeLimits): Promise<TreeStat[]> {
  const out: TreeStat[] = [];
  await walk(root, root, limits, out);
  const total = out.reduce((sum, file) => sum + file.size, 0);
  if (total > limits.maxBytes) throw new FileTreeError(`${total} bytes, more than ${limits.maxBytes}`, 'too_large');
  return out;
}

/**
 * A cheap fingerprint of the tree under `root` (each file's path, size, times and inode): it
 * changes whenever a file is written, added, removed or replaced, without reading any content.
 */
export async function fileTreeFingerprint(root: string, limits: FileTreeLimits): Promise<string> {
  const files = await statTree(root, limits);
  return files.map((file) => `${file.path}\u0000${file.stamp}`).join('\n');
}

/**
 * Reads every plain file under `root` into memory, keyed by its relative path (with `/`). Refuses
 * (throws {@link FileTreeError}) a missing root, symbolic links and special files, and trees past
 * `limits`, so a caller never works from part of a tree.
 */
export async function readFileTree(root: string, limits: FileTreeLimits): Promise<Map<string, Buffer>> {
  const files = await statTree(root, limits);
  const out = new Map<string, Buffer>();
  let total = 0;
  for (const file of files) {
    const bytes = await readFile(join(root, file.path));
    total += bytes.length;
    if (total > limits.maxBytes) throw new FileTreeError(`more than ${limits.maxBytes} bytes`, 'too_large');
    out.set(file.path, bytes);
  }
  return out;
}

/** The text of the files at `paths` under `root` that exist (missing ones are left out), in order. */
export async function readTextFiles(root: string, paths: readonly string[]): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const path of paths) {
    try {
      out.push({ path, text: await readFile(join(root, path), 'utf8') });
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ENOENT') throw err;
    }
  }
  return out;
}

/** Relative paths (with `/`) of the files under `root/dir` whose names end with `suffix`, sorted. */
export async function listFiles(root: string, dir: string, suffix: string): Promise<string[]> {
  try {
    const names = await readdir(join(root, dir));
    return names
      .filter((name) => name.endsWith(suffix))
      .sort()
      .map((name) => toSlash(join(dir, name)));
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return [];
    throw err;
  }
}
