/**
 * The one configuration module: explicit option > environment variable > default.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where faultline keeps state (evaluation results, later the server's database): FAULTLINE_HOME or ~/.faultline. */
export function faultlineHome(explicit?: string): string {
  return explicit ?? process.env.FAULTLINE_HOME ?? join(homedir(), '.faultline');
}

/** The database file inside a faultline home. */
export function databasePath(home: string = faultlineHome()): string {
  return join(home, 'faultline.db');
}
