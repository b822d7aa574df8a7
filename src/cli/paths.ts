import { isAbsolute, resolve } from 'node:path';

/**
 * A path given on the command line, made absolute against the operator's directory. `npm run mica`
 * runs the CLI in the package directory, but npm says where it was invoked from in INIT_CWD, so
 * `npm --prefix /srv/mica run mica -- casps import casps.csv` reads ./casps.csv of the caller.
 * Without INIT_CWD (the CLI started directly) it is the working directory; absolute paths stay.
 */
export function cliPath(path: string): string {
  if (isAbsolute(path)) return path;
  return resolve(process.env.INIT_CWD || process.cwd(), path);
}
