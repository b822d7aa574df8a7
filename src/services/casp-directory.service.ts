import { sha256Hex } from '../domain/sha256.ts';
import {
  type CaspDirectory,
  CaspDirectoryError,
  type CaspEntry,
  parseCaspDirectoryCsv,
} from '../domain/travel-rule/index.ts';
import { AppError } from '../errors.ts';
import type { CaspDirectoryRepo } from '../storage/casp-directory.repo.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';

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

function snapshotOf(version: number, entries: readonly CaspEntry[]): CaspSnapshot {
  const byLei = new Map<string, CaspEntry>();
  for (const e of entries) byLei.set(e.lei, { lei: e.lei, name: e.name, country: e.country });
  return { version, size: byLei.size, get: (lei) => byLei.get(lei) };
}

/**
 * The CASP directory for counterparty verification. Lookups are served from memory; at most once
 * per `checkIntervalMs` a lookup starts (without waiting for it) a check of the stored version, and
 * a newer import is loaded in the background and swapped in whole. So the hot path never queries,
 * and an import made through another instance or the CLI is seen within a few seconds.
 */
export function createCaspDirectoryService(deps: {
  repo: Pick<CaspDirectoryRepo, 'replace' | 'version' | 'loadAll'>;
  audit: Pick<OperatorAuditRepo, 'record'>;
  checkIntervalMs?: number;
  onError?: (err: unknown) => void;
  now?: () => number;
}) {
  const interval = deps.checkIntervalMs ?? 5000;
  const now = deps.now ?? Date.now;
  let current: CaspSnapshot | undefined;
  let loading: Promise<CaspSnapshot> | undefined;
  let checking = false;
  let lastCheck = 0;

  // A slower load must never replace a newer directory (an import in this process may have won).
  function adopt(next: CaspSnapshot): CaspSnapshot {
    if (!current || next.version >= current.version) current = next;
    return current;
  }

  async function load(): Promise<CaspSnapshot> {
    const { version, entries } = await deps.repo.loadAll();
    return adopt(snapshotOf(version, entries));
  }

  async function check(): Promise<void> {
    try {
      const version = await deps.repo.version();
      if (version !== current?.version) await load();
    } catch (err) {
      deps.onError?.(err);
    } finally {
      checking = false;
    }
  }

  return {
    /** The directory to look up in; loads it on first use, then refreshes in the background. */
    async directory(): Promise<CaspSnapshot> {
      if (!current) {
        loading ??= load().finally(() => {
          loading = undefined;
        });
        lastCheck = now();
        return loading;
      }
      if (!checking && now() - lastCheck >= interval) {
        checking = true;
        lastCheck = now();
        void check();
      }
      return current;
    },

    /** Parses the CSV and replaces the stored directory atomically, audited; this process switches at once. */
    async import(csv: string, opts: { source?: string; actor: string }): Promise<CaspImportResult> {
      let records: ReturnType<typeof parseCaspDirectoryCsv>;
      try {
        records = parseCaspDirectoryCsv(csv);
      } catch (e) {
        if (!(e instanceof CaspDirectoryError)) throw e;
        throw new AppError('INVALID_REQUEST', e.message, { errors: e.problems, lines: e.lines });
      }
      const sha256 = sha256Hex(csv);
      const source = opts.source ?? 'stdin';
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
      adopt(snapshotOf(row.version, records));
      lastCheck = now();
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
