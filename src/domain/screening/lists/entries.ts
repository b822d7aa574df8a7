import type { ListSource, SanctionsEntry } from './model.ts';
import { printable, quoted, uniq } from './text.ts';

// What every loader's entries go through before they are stored, whatever the format: one record
// per entry id, and a name on each. The store keys entries by (source, entry id), and a hit shows
// the entry's name: an empty one left the operator with nothing to go on.

/**
 * One record per entry id. A list that repeats an id (the same EU reference number twice) is
 * saying both records are that one party: the later records are merged into the first, their
 * names (as aliases), programmes and weak aliases kept. Nothing a list publishes is dropped, since
 * a dropped record's names would no longer be screened, and a hit on its addresses (which carry
 * the id, and are all kept) would name the first record with nothing to show the rest. Each
 * merge is warned of, naming the id and both names.
 */
export function mergeDuplicateEntries(
  source: ListSource,
  entries: readonly SanctionsEntry[],
): { entries: SanctionsEntry[]; warnings: string[] } {
  const byId = new Map<string, SanctionsEntry>();
  const warnings: string[] = [];
  for (const entry of entries) {
    const first = byId.get(entry.entry_id);
    if (first === undefined) {
      byId.set(entry.entry_id, { ...entry });
      continue;
    }
    const aliases = uniq([...first.aliases, entry.name, ...entry.aliases]).filter((n) => n !== first.name);
    const weak = uniq([...(first.weak_aliases ?? []), ...(entry.weak_aliases ?? [])]).filter(
      (n) => n !== first.name && !aliases.includes(n),
    );
    byId.set(entry.entry_id, {
      ...first,
      aliases,
      programs: uniq([...first.programs, ...entry.programs]),
      ...(weak.length > 0 ? { weak_aliases: weak } : {}),
    });
    warnings.push(
      `${source}: entry id ${printable(entry.entry_id)} is listed again (${describe(entry.name)}): merged into its first record (${describe(first.name)}), its names held as aliases, its addresses and programmes kept`,
    );
  }
  return { entries: [...byId.values()], warnings };
}

const describe = (name: string) => (name === '' ? 'no name' : quoted(name, 80));

/**
 * A name for every entry. An entry published without one (an EU sanctionEntity with no nameAlias,
 * a UN INDIVIDUAL with only its REFERENCE_NUMBER) takes its first alias, else its entry id, which
 * is what the list's notices cite it by: a hit on its address then names something to look up
 * rather than "". A weak alias is not taken, since the name is screened and a weak alias is too
 * generic to be. Each is warned of, naming the entry.
 */
export function nameNamelessEntries(
  source: ListSource,
  entries: readonly SanctionsEntry[],
): { entries: SanctionsEntry[]; warnings: string[] } {
  const warnings: string[] = [];
  const named = entries.map((entry) => {
    if (entry.name !== '') return entry;
    const [alias, ...rest] = entry.aliases;
    const id = printable(entry.entry_id);
    if (alias !== undefined) {
      warnings.push(`${source}: entry ${id} has no name: held under its first alias, ${quoted(alias, 80)}`);
      return { ...entry, name: alias, aliases: rest };
    }
    warnings.push(`${source}: entry ${id} has no name nor alias: its entry id stands for its name`);
    return { ...entry, name: entry.entry_id };
  });
  return { entries: named, warnings };
}
