import { isStorableInstant, parseIsoInstant, STORABLE_INSTANT_RANGE } from '../domain/rules/facts.ts';
import {
  type AddressIndex,
  buildAddressIndex,
  buildNameIndex,
  buildNameIndexInSlices,
  ListFormatError,
  type NameIndex,
  normalizePublishedAt,
  printable,
  publishedBefore,
} from '../domain/screening/index.ts';
import { AppError } from '../errors.ts';
import type { OperatorAuditRepo, OperatorEvent } from '../storage/operator-audit.repo.ts';
import { importEvent, type ListMeta, type SanctionsListsRepo } from '../storage/sanctions-lists.repo.ts';
import { createConfirmedSnapshot } from './confirmed-snapshot.ts';
import { type ListImportRequest, type PreparedList, WARNINGS_SHOWN } from './list-prep.ts';
import { prepareListOffThread } from './list-prep-thread.ts';

/** What screening reads: the indexes of every held list and the versions they were built from. */
export interface HeldLists {
  tag: string;
  addresses: AddressIndex;
  names: NameIndex;
  meta: ListMeta[];
}

/**
 * What an operator is told at start-up about the held lists. With none, every address screens as
 * clean unless a vendor says otherwise, and nothing in an answer shows it (the audit record has an
 * empty `sanctions_lists`): so that is a warning, with the command that fixes it.
 */
export function heldListsNotice(meta: readonly ListMeta[]): {
  level: 'info' | 'warn';
  lists: { source: string; published_at: string | null; entries: number; screenable_addresses: number }[];
  message: string;
} {
  const lists = meta.map((m) => ({
    source: m.source,
    published_at: m.published_at,
    entries: m.entry_count,
    screenable_addresses: m.screenable_address_count,
  }));
  if (lists.length === 0)
    return {
      level: 'warn',
      lists,
      message:
        'no sanctions list is held: wallet screening relies on the configured vendors alone; import one with `npm run mica -- lists import <ofac|un|eu> <path>`',
    };
  return { level: 'info', lists, message: `sanctions lists held: ${lists.map((l) => l.source).join(', ')}` };
}

/** Largest list import (all files together); JSON-escaped it fits the operator API's 256 MiB body. */
export const LIST_IMPORT_MAX_BYTES = 128 * 1024 * 1024;

/**
 * Whether an import may replace the held list, by their publication dates: an older list would
 * silently unlist every address sanctioned since (the 2021 OFAC set over a 2025 one screened them
 * ALLOW). Refused unless the operator says the roll-back is meant; the same publication again is
 * no roll-back. Returns the held date an allowed roll-back replaced, else null.
 */
export function admitPublication(
  source: string,
  importing: string,
  held: string | null | undefined,
  allowOlder: boolean,
): string | null {
  if (held === null || held === undefined || !publishedBefore(importing, held)) return null;
  // A list held before dates were normalised may carry an offset: named as it is held now.
  const heldAt = normalizePublishedAt(held) ?? held;
  if (allowOlder) return heldAt;
  throw new AppError(
    'INVALID_TRANSITION',
    `${source}: this list was published ${importing}, before the held one (published ${heldAt}); importing it would drop what was listed since. To roll back deliberately, repeat with --allow-older (allow_older: true)`,
    { published_at: importing, held_published_at: heldAt },
  );
}

/**
 * Whether an import dated only by its file's modification date (`file_date`: the OFAC CSV set,
 * which states none) may take it: only as the first list of its source. Over a held list the
 * modification date says nothing of the publication (a fresh copy of an old set is dated today, a
 * newer set restored with cp -p or rsync keeps an old date), and the roll-back check would compare
 * it: the operator must give the date.
 */
export function admitFileDate(
  list: Pick<PreparedList, 'source' | 'published_at' | 'published_at_from' | 'undated'>,
  held: string | null | undefined,
): void {
  if (list.published_at_from !== 'file_date' || held === undefined) return;
  const heldAt = held === null ? 'undated' : `published ${normalizePublishedAt(held) ?? held}`;
  throw new AppError(
    'INVALID_TRANSITION',
    `${list.source}: ${list.undated ?? 'the files carry no publication date'} and an ${list.source} list is held (${heldAt}): give it with --published-at YYYY-MM-DD; the file's modification date (${list.published_at}) dates only a first import`,
    { file_date: list.published_at, held_published_at: held },
  );
}

/** The operator-audit actions of an import that committed and of one that was refused. */
const IMPORTED = 'sanctions_list.imported';
const REFUSED = 'sanctions_list.import_refused';

/** A warning or a refusal's reason as kept in the audit: bounded (the file's text may be in it). */
const MESSAGE_MAX = 2000;
const bounded = (message: string) =>
  message.length <= MESSAGE_MAX ? message : `${message.slice(0, MESSAGE_MAX - 1)}…`;

/**
 * The audit event of an import with its warnings' text (the first WARNINGS_SHOWN; `warnings` stays
 * the count of all): they say why a listed address is not screened, and the CLI's output that
 * showed them is gone once read. `lists status` shows them again from here.
 */
function importEventWithWarnings(event: OperatorEvent, warnings: readonly string[]): OperatorEvent {
  return {
    ...event,
    detail: { ...event.detail, warning_messages: warnings.slice(0, WARNINGS_SHOWN).map(bounded) },
  };
}

/**
 * The audit event of a refused import: who tried which files of which source, and why. The held
 * list is untouched (the refusal came before its transaction committed, or rolled it back).
 */
export function refusedImportEvent(
  args: ListImportRequest & { allow_older?: boolean },
  actor: string,
  err: AppError,
): OperatorEvent {
  return {
    client_id: null,
    actor,
    action: REFUSED,
    subject: args.source,
    detail: {
      source: args.source,
      files: (args.files ?? []).map((f) => printable(f.name.split(/[\\/]/).pop() ?? '', 256)),
      // As given, and bounded: a refused date may be any text (only its start is checked).
      published_at: args.published_at == null ? null : printable(args.published_at, 64),
      file_date: args.file_date == null ? null : printable(args.file_date, 64),
      allow_older: args.allow_older === true,
      error: err.code,
      status: err.status,
      reason: bounded(err.message),
    },
  };
}

/** How many recent events of a source `lists status` reads to find its held import's. */
const STATUS_EVENTS = 200;

/** Resolves on a later turn of the event loop, after the I/O that is waiting (setImmediate). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const EMPTY: HeldLists = {
  tag: '',
  addresses: buildAddressIndex([]),
  names: buildNameIndex([]),
  meta: [],
};

/**
 * Imports lists (atomically, audited) and holds their indexes in memory for screening. The stored
 * versions are checked about twice per `refreshMs` under traffic, so an import made by another
 * instance (or the CLI) is picked up within that time without a query per request.
 */
export function createSanctionsListsService(deps: {
  repo: SanctionsListsRepo;
  audit: Pick<OperatorAuditRepo, 'record' | 'list'>;
  refreshMs: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}) {
  const held = createConfirmedSnapshot<HeldLists>({
    async load() {
      const snap = await deps.repo.loadAll();
      return {
        tag: snap.tag,
        addresses: buildAddressIndex(snap.lists),
        // In slices, between which requests are served: the build takes tens of milliseconds.
        names: await buildNameIndexInSlices(snap.lists, nextTurn),
        meta: snap.meta,
      };
    },
    storedVersion: () => deps.repo.versionTag(),
    versionOf: (lists) => lists.tag,
    refreshMs: deps.refreshMs,
    now: deps.now,
    onError: deps.onError,
  });

  return {
    /**
     * The held lists. The first call loads them. No answer rests on lists unconfirmed for longer
     * than `refreshMs` (createConfirmedSnapshot), so a wallet an import through another instance
     * or the CLI has just listed is not answered clean past that time.
     */
    current: (): Promise<HeldLists> => held.current(),

    /**
     * Imports a list (importList). A refused one (a file no loader takes, a date to come, a
     * roll-back) is recorded in the operator audit with its files and reason, the held list unchanged.
     */
    async import(args: ListImportRequest & { allow_older?: boolean }, actor: string) {
      try {
        return await importList(args, actor);
      } catch (err) {
        // A refusal leaves a trace like an import does; a failure of the store itself is no refusal.
        if (err instanceof AppError) {
          // The operator is told the refusal either way: a store that cannot take the event
          // (down, say) must not turn it into another error. (onError is the reload's, logged as one.)
          await deps.audit.record(refusedImportEvent(args, actor, err)).catch(() => undefined);
        }
        throw err;
      }
    },

    /**
     * What is held, per source, with the warnings of the import that put it there (from its audit
     * event: null when that event predates them or lies beyond the events read).
     */
    async status() {
      const lists = await deps.repo.meta();
      return {
        lists: await Promise.all(
          lists.map(async (m) => {
            // Newest first: refused attempts since do not hide the held import's event.
            const events = (await deps.audit.list({ subject: m.source, limit: STATUS_EVENTS })).reverse();
            const d = events.find((e) => e.action === IMPORTED && e.detail.version === m.version)?.detail;
            return {
              ...m,
              warning_count: typeof d?.warnings === 'number' ? d.warnings : null,
              warnings: Array.isArray(d?.warning_messages) ? (d.warning_messages as string[]) : null,
            };
          }),
        ),
      };
    },

    /** Held lists without touching the database (empty before the first load). */
    peek: (): HeldLists => held.peek() ?? EMPTY,
  };

  /**
   * Parses and stores a list, replacing the held one of that source unless it was published
   * earlier (see admitPublication) or is dated only by its file over a held one (admitFileDate),
   * then reloads the indexes.
   */
  async function importList(args: ListImportRequest & { allow_older?: boolean }, actor: string) {
    // The operator's publication date and the file date must be ones that exist (2026-02-30 is
    // not 2 March).
    for (const field of ['published_at', 'file_date'] as const) {
      const value = args[field];
      const at = value ? parseIsoInstant(value) : undefined;
      if (value && at === undefined)
        throw new AppError('INVALID_REQUEST', `${field}: not an existing ISO 8601 date: ${value}`);
      if (at && !isStorableInstant(at))
        throw new AppError('INVALID_REQUEST', `${field}: ${STORABLE_INSTANT_RANGE}`);
    }
    let list: PreparedList;
    try {
      list = await prepareListOffThread(args);
    } catch (err) {
      if (err instanceof ListFormatError) throw new AppError('INVALID_REQUEST', err.message);
      throw err;
    }
    // Shown in the answer and the audit event: where the date came from, and a roll-back is
    // never silent.
    const override = {
      published_at_from: list.published_at_from,
      allow_older: args.allow_older === true,
      rolled_back_from: null as string | null,
    };
    const meta = await deps.repo.replace(
      list,
      actor,
      (held) => {
        admitFileDate(list, held);
        override.rolled_back_from = admitPublication(
          list.source,
          list.published_at,
          held,
          override.allow_older,
        );
      },
      (trx, m) =>
        deps.audit.record(
          importEventWithWarnings(importEvent(m, list.warning_count, override), list.warnings),
          trx,
        ),
    );
    await held.reloadAfterCommit();
    return {
      source: meta.source,
      version: meta.version,
      published_at: meta.published_at,
      imported_at: meta.imported_at,
      entries: meta.entry_count,
      aliases: meta.alias_count,
      addresses: meta.address_count,
      screenable_addresses: meta.screenable_address_count,
      files: meta.files,
      warnings: list.warnings,
      warning_count: list.warning_count,
      ...override,
    };
  }
}
export type SanctionsListsService = ReturnType<typeof createSanctionsListsService>;
