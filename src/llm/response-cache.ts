/**
 * On-disk cache of model replies, keyed by provider, model, endpoint, prompts and settings, so a
 * repeated run costs no calls. One small JSON file per reply under FAULTLINE_HOME/cache/llm.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What is cached of a reply. */
export interface CachedReply {
  text: string;
  inputTokens: number;
  outputTokens: number;
}

/** The cache key of a request. */
export function cacheKey(parts: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** A folder of cached replies. */
export class ResponseCache {
  constructor(private readonly folder: string) {}

  private pathOf(key: string): string {
    return join(this.folder, key.slice(0, 2), `${key}.json`);
  }

  /** The cached reply, if any (a corrupt entry counts as a miss). */
  get(key: string): CachedReply | undefined {
    try {
      const value = JSON.parse(readFileSync(this.pathOf(key), 'utf8')) as CachedReply;
      return typeof value.text === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Stores a reply atomically (write then rename), so a crash never leaves half a file. */
  set(key: string, reply: CachedReply): void {
    const path = this.pathOf(key);
    mkdirSync(join(this.folder, key.slice(0, 2)), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(reply));
    renameSync(temporary, path);
  }
}
