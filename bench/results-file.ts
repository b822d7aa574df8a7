import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * bench/RESULTS.md holds one section per benchmark (evaluation, screening, travel rule, webhooks,
 * audit export, audit scale…). Each benchmark rewrites only its own section, between
 * `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, so running one does not erase the others'
 * results. Sections keep their first-seen order; a new one is appended.
 */
const HEADER = [
  '# Benchmark results',
  '',
  'Each section is written by the benchmark named in it and overwritten only when that benchmark runs again;',
  'see bench/README.md for how to run them. Compare numbers only within one section (one run, one machine state).',
  '',
].join('\n');

export function writeSection(file: string, name: string, markdown: string): void {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad section name ${name}`);
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${begin}\n${markdown.trimEnd()}\n${end}`;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (!text.startsWith('# Benchmark results')) text = HEADER; // older single-report format: start over
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  text =
    from >= 0 && to > from
      ? `${text.slice(0, from)}${block}${text.slice(to + end.length)}`
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, `${text.trimEnd()}\n`);
}
