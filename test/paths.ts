/** Paths shared by tests: the repository root, fixtures and the shared data beside the checkout. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const FIXTURES = join(ROOT, 'src/trace/__fixtures__');
export const WHO_AND_WHEN = join(ROOT, '../shared/datasets/who-and-when');
/** The shared data set is beside every checkout here; tests that need it say so when it is missing. */
export const HAS_SHARED_DATA = existsSync(WHO_AND_WHEN);
export const AEGIS = join(ROOT, '../shared/datasets/aegis');
export const MAD_MAST = join(ROOT, '../shared/datasets/mad-mast');
