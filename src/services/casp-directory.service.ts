import {
  type CaspDirectory,
  CaspDirectoryError,
  type CaspEntry,
  type CaspRecord,
} from '../domain/travel-rule/index.ts';
import { AppError } from '../errors.ts';
import type { CaspDirectoryRepo } from '../storage/casp-directory.repo.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { prepareCaspImportOffThread, unpackRecords } from './casp-import-prep.ts';
import { createConfirmedSnapshot } from './confirmed-snapshot.ts';

/** Largest CSV an import takes (in characters; the CLI checks the file's bytes against the same figure). */
export const CASP_IMPORT_MAX_CHARS = 64 * 1024 * 1024;

/** The directory as this process holds it, and the import it came from (0: none yet). */
export interface CaspSnapshot extends CaspDirectory {
  readonly version: number;
  readonly size: number;
}

export interface CaspImportResult {
  source: string;
  rows: number;
  sha256: string;
  version: number;
  imported_at: string;
}

/** Resolves on a later turn of the event loop, after the I/O that is waiting (setImmediate). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Entries indexed per slice: a few milliseconds, between which requests are served. */
const INDEX_SLICE = 4096;

/** Maps an index is split into by a hash of the LEI's last characters. */
const SHARDS = 256;

/**
 * Entries by LEI in many small Maps rather than one: a single Map of hundreds of thousands of
 * entries rehashes all of them at once as it grows (100–250 ms of one slice at 700,000 rows).
 */
class LeiIndex {
  readonly #shards = Array.from({ length: SHARDS }, () => new Map<string, CaspEntry>());
  size = 0;

  #shard(lei: string): Map<string, CaspEntry> {
    let h = 0;
    for (let i = Math.max(0, lei.length - 6); i < lei.length; i++) h = (h * 31 + lei.charCodeAt(i)) | 0;
    return this.#shards[h & (SHARDS - 1)]!;
  }

  /** Holds `e` itself: the caller passes an object with nothing else worth keeping. */
  set(e: CaspEntry): void {
    const shard = this.#shard(e.lei);
    if (!shard.has(e.lei)) this.size++;
    shard.set(e.lei, e);
  }

  get(lei: string): CaspEntry | undefined {
    return this.#shard(lei).get(lei);
  }
}

/** The lookup over an index of entries by LEI. */
function snapshotOf(version: number, index: LeiIndex): CaspSnapshot {
  return { version, size: index.size, get: (lei) => index.get(lei) };
}

/** Indexes entries a slice at a time (700,000 rows took some 400 ms at once). */
async function indexInSlices(entries: readonly CaspEntry[]): Promise<LeiIndex> {
  const index = new LeiIndex();
  for (let i = 0; i < entries.length; i += INDEX_SLICE) {
    for (const e of entries.slice(i, i + INDEX_SLICE))
      index.set({ lei: e.lei, name: e.name, country: e.country });
    await nextTurn();
  }
  return index;
}

/**
 * The CASP directory for counterparty verification. Lookups are served from memory, and no answer
 * rests on a directory unconfirmed for longer than `refreshMs` (createConfirmedSnapshot). An import
 * is parsed on a worker thread and indexed in slices, so the requests being served meanwhile wait
 * for neither.
 */
export function createCaspDirectoryService(deps: {
  repo: Pick<CaspDirectoryRepo, 'replace' | 'version' | 'loadAll'>;
  audit: Pick<OperatorAuditRepo, 'record'>;
  refreshMs?: number;
  onError?: (err: unknown) => void;
  now?: () => number;
}) {
  const held = createConfirmedSnapshot<CaspSnapshot>({
    async load() {
      const { version, entries } = await deps.repo.loadAll();
      return snapshotOf(version, await indexInSlices(entries));
    },
    storedVersion: () => deps.repo.version(),
    versionOf: (snapshot) => snapshot.version,
    // A slower load must never replace a newer directory (an import in this process may have won).
    replaces: (next, current) => next.version >= current.version,
    refreshMs: deps.refreshMs ?? 5000,
    now: deps.now,
    onError: deps.onError,
  });

  return {
    /** The directory to look up in; loads it on first use, then keeps it confirmed. */
    directory: (): Promise<CaspSnapshot> => held.current(),

    /**
     * Parses the CSV (on a worker thread) and replaces the stored directory atomically, audited;
     * this process switches at once. The old directory serves until the new one is committed.
     */
    async import(csv: string, opts: { source?: string; actor: string }): Promise<CaspImportResult> {
      // A NUL or a lone surrogate is a binary file read as text: the stores refuse both, each its
      // own way (PostgreSQL with an error about escapes), after the parse. The CLI refuses such a
      // file as it reads it; this is for callers of the command that skip it.
      if (csv.includes('\u0000') || /[\uD800-\uDFFF]/u.test(csv))
        throw new AppError(
          'INVALID_REQUEST',
          'the CSV is not text (NUL bytes or invalid UTF-8); nothing was replaced',
        );
      let prepared: Awaited<ReturnType<typeof prepareCaspImportOffThread>>;
      try {
        prepared = await prepareCaspImportOffThread(csv, nextTurn);
      } catch (e) {
        if (!(e instanceof CaspDirectoryError)) throw e;
        throw new AppError('INVALID_REQUEST', e.message, { errors: e.problems, lines: e.lines });
      }
      const { sha256 } = prepared;
      const records: CaspRecord[] = [];
      const index = new LeiIndex();
      // Without extra columns a record is kept as the entry itself (its `extra` one shared empty
      // object): every object made here outlives many young-generation collections, each of which
      // copies it.
      const bare = prepared.records.columns.length === 0;
      await unpackRecords(
        prepared.records,
        (r) => {
          records.push(r);
          index.set(bare ? r : { lei: r.lei, name: r.name, country: r.country });
        },
        nextTurn,
      );
      const source = opts.source ?? 'stdin';
      // The import about to commit is the latest when it commits: confirmed from here on.
      const startedAt = held.now();
      const row = await deps.repo.replace(records, { source, sha256, actor: opts.actor }, (trx) =>
        deps.audit.record(
          {
            client_id: null,
            actor: opts.actor,
            action: 'casps.imported',
            subject: source,
            detail: { rows: records.length, sha256 },
          },
          trx,
        ),
      );
      held.adopt(snapshotOf(row.version, index), startedAt);
      return {
        source,
        rows: row.row_count,
        sha256,
        version: row.version,
        imported_at: new Date(row.imported_at).toISOString(),
      };
    },
  };
}
export type CaspDirectoryService = ReturnType<typeof createCaspDirectoryService>;
