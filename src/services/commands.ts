import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { AppError, fieldError } from '../errors.ts';
import type { Jobs } from '../jobs/jobs.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { describeAjvErrors } from '../validation-problems.ts';
import type { AuditChainService } from './audit-chain.service.ts';
import { CASP_IMPORT_MAX_CHARS, type CaspDirectoryService } from './casp-directory.service.ts';
import type { ClientsService } from './clients.service.ts';
import type { KeysService } from './keys.service.ts';
import type { SanctionsListsService } from './sanctions-lists.service.ts';
import type { WebhookRegistrationsService } from './webhook-registrations.service.ts';

/**
 * Operator commands, shared by the CLI (working on the store itself) and the server's operator API
 * (when the embedded store is held by a running server): the same code, so the same output.
 */
export interface CommandDeps {
  migrate: () => Promise<string[]>;
  clients: ClientsService;
  keys: KeysService;
  casps: Pick<CaspDirectoryService, 'import'>;
  lists: Pick<SanctionsListsService, 'import' | 'status'>;
  webhooks: Pick<WebhookRegistrationsService, 'add' | 'list' | 'remove'>;
  jobs: Pick<Jobs, 'run'>;
  auditChain: Pick<AuditChainService, 'verify' | 'checkpoint' | 'checkpoints'>;
  operatorAudit: Pick<OperatorAuditRepo, 'list'>;
  /** The service's environment (MICA_ENVIRONMENT): a new key is for it unless the command says. */
  environment: 'live' | 'sandbox';
}

interface Command<S extends TSchema> {
  args: S;
  run: (deps: CommandDeps, args: Static<S>, actor: string) => Promise<unknown>;
}
const command = <S extends TSchema>(c: Command<S>) => c as unknown as Command<TSchema>;

const Str = Type.String({ minLength: 1, maxLength: 256 });

/**
 * Refuses a client that does not exist, as keys create and officers do: a command that reads one
 * client's records would otherwise answer an unknown id as a client with nothing (audit verify: ok).
 */
async function knownClient(d: CommandDeps, clientId: string): Promise<void> {
  if (!(await d.clients.get(clientId))) throw new AppError('NOT_FOUND', `client ${clientId} not found`);
}

export const COMMANDS: Record<string, Command<TSchema>> = {
  // The secret goes in, never out: every answer shows fingerprints only.
  'webhooks.add': command({
    args: Type.Object({ kind: Str, client_id: Str, secret: Type.String({ maxLength: 512 }) }),
    run: (d, a, actor) => d.webhooks.add(a.kind, a.client_id, a.secret, actor),
  }),
  'webhooks.list': command({
    args: Type.Object({ client_id: Type.Optional(Str) }),
    run: async (d, a) => {
      if (a.client_id !== undefined) await knownClient(d, a.client_id);
      return d.webhooks.list(a.client_id);
    },
  }),
  'webhooks.remove': command({
    args: Type.Object({ id: Str, secret_fingerprint: Type.Optional(Str) }),
    run: (d, a, actor) => d.webhooks.remove(a.id, actor, a.secret_fingerprint),
  }),
  'jobs.run': command({
    args: Type.Object({ job: Str }),
    run: (d, a) => d.jobs.run(a.job),
  }),
  'lists.import': command({
    args: Type.Object({
      source: Type.Union([Type.Literal('ofac'), Type.Literal('eu'), Type.Literal('un')]),
      // File contents as text: the CLI reads the files, so this also works through the operator API.
      files: Type.Array(Type.Object({ name: Str, content: Type.String() }), { minItems: 1, maxItems: 8 }),
      published_at: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}([T ].*)?$' })),
      // The main file's modification date (the CLI's, for the OFAC CSV set): dates a first import only.
      file_date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
      // A list published before the held one is refused unless this says the roll-back is meant.
      allow_older: Type.Optional(Type.Boolean()),
    }),
    run: (d, a, actor) => d.lists.import(a, actor),
  }),
  'lists.status': command({
    args: Type.Object({}),
    run: (d) => d.lists.status(),
  }),
  migrate: command({
    args: Type.Object({}),
    run: async (d) => ({ applied: await d.migrate() }),
  }),
  'clients.create': command({
    args: Type.Object({
      client_id: Str,
      name: Type.Optional(Str),
      settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
    run: (d, a, actor) => d.clients.create(a.client_id, { name: a.name, settings: a.settings, actor }),
  }),
  'clients.settings': command({
    args: Type.Object({ client_id: Str, settings: Type.Record(Type.String(), Type.Unknown()) }),
    run: (d, a, actor) => d.clients.setSettings(a.client_id, a.settings, actor),
  }),
  // Settings are replaced whole by clients.settings: what is stored must be readable first.
  'clients.show': command({
    args: Type.Object({ client_id: Str }),
    run: async (d, a) => {
      const row = await d.clients.get(a.client_id);
      if (!row) throw new AppError('NOT_FOUND', `client ${a.client_id} not found`);
      const { officers } = await d.clients.officers(a.client_id);
      return {
        client_id: row.client_id,
        name: row.name,
        settings: row.settings ?? {},
        officers,
        created_at: new Date(row.created_at).toISOString(),
      };
    },
  }),
  'officers.add': command({
    args: Type.Object({ client_id: Str, officer: Str }),
    run: (d, a, actor) => d.clients.addOfficer(a.client_id, a.officer, actor),
  }),
  'officers.remove': command({
    args: Type.Object({ client_id: Str, officer: Str }),
    run: (d, a, actor) => d.clients.removeOfficer(a.client_id, a.officer, actor),
  }),
  'officers.list': command({
    args: Type.Object({ client_id: Str }),
    run: (d, a) => d.clients.officers(a.client_id),
  }),
  // Existence check only: the CLI asks it before a streamed command of one client (audit export),
  // whose errors must come before its first line of output.
  'clients.check': command({
    args: Type.Object({ client_id: Str }),
    run: async (d, a) => {
      await knownClient(d, a.client_id);
      return { client_id: a.client_id };
    },
  }),
  // The operator's own trail: clients, settings, keys, officers, webhooks, list and CASP imports.
  'audit.operator': command({
    args: Type.Object({
      client_id: Type.Optional(Str),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    }),
    run: async (d, a) => {
      if (a.client_id !== undefined) await knownClient(d, a.client_id);
      const rows = await d.operatorAudit.list({ client_id: a.client_id, limit: a.limit ?? 1000 });
      return rows.map((r) => ({
        at: new Date(r.at).toISOString(),
        client_id: r.client_id,
        actor: r.actor,
        action: r.action,
        subject: r.subject,
        detail: r.detail,
      }));
    },
  }),
  'audit.verify': command({
    args: Type.Object({
      client_id: Str,
      // Checkpoints exported earlier (`audit checkpoints`) and kept elsewhere, to verify against.
      checkpoints: Type.Optional(
        Type.Array(
          Type.Object({
            client_id: Type.Optional(Str),
            seq: Type.Integer({ minimum: 1 }),
            head_hash: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
            created_at: Type.String({
              pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$',
            }),
          }),
          { minItems: 1, maxItems: 1_000_000 },
        ),
      ),
    }),
    run: async (d, a) => {
      await knownClient(d, a.client_id);
      const foreign = a.checkpoints?.find((c) => c.client_id !== undefined && c.client_id !== a.client_id);
      if (foreign)
        throw fieldError('checkpoints', `A checkpoint of client ${foreign.client_id}, not of ${a.client_id}`);
      const undated = a.checkpoints?.find((c) => Number.isNaN(Date.parse(c.created_at)));
      if (undated) throw fieldError('checkpoints', `Not a date: ${undated.created_at}`);
      return d.auditChain.verify(a.client_id, a.checkpoints);
    },
  }),
  'audit.checkpoint': command({
    args: Type.Object({ client_id: Type.Optional(Str) }),
    run: async (d, a) => {
      if (a.client_id !== undefined) await knownClient(d, a.client_id);
      return { checkpoints: await d.auditChain.checkpoint(a.client_id) };
    },
  }),
  'audit.checkpoints': command({
    args: Type.Object({ client_id: Str }),
    run: async (d, a) => {
      await knownClient(d, a.client_id);
      return { checkpoints: await d.auditChain.checkpoints(a.client_id) };
    },
  }),
  'keys.create': command({
    args: Type.Object({
      client_id: Str,
      role: Type.Optional(Type.Union([Type.Literal('standard'), Type.Literal('admin')])),
      sandbox: Type.Optional(Type.Boolean()),
      expires_in_days: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3650 })),
      officer: Type.Optional(Str),
    }),
    run: (d, a, actor) => {
      // The sandbox is a service of its own, with its own store (CONTRACT §1): a key of the other
      // environment stored here would be accepted by no service, yet listed as active.
      const here = d.environment === 'sandbox';
      if (a.sandbox !== undefined && a.sandbox !== here)
        throw new AppError(
          'INVALID_REQUEST',
          a.sandbox
            ? 'mica_test_ keys are issued on the sandbox service: run the command with MICA_ENVIRONMENT=sandbox and the sandbox store (its MICA_DATA_DIR or DATABASE_URL); this live service refuses them'
            : 'mica_live_ keys are issued on the live service: run the command without MICA_ENVIRONMENT=sandbox, on the live store; this sandbox service refuses them',
        );
      return d.keys.create(a.client_id, {
        role: a.role,
        sandbox: here,
        expiresInDays: a.expires_in_days,
        officer: a.officer,
        actor,
      });
    },
  }),
  'keys.list': command({
    args: Type.Object({ client_id: Str }),
    run: (d, a) => d.keys.list(a.client_id),
  }),
  'keys.revoke': command({
    args: Type.Object({ key_id: Str }),
    run: (d, a, actor) => d.keys.revoke(a.key_id, actor),
  }),
  'keys.rotate': command({
    args: Type.Object({
      key_id: Str,
      grace_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 720 })),
      expires_in_days: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3650 })),
    }),
    run: (d, a, actor) => d.keys.rotate(a.key_id, actor, a.grace_hours, a.expires_in_days),
  }),
  // The CSV travels as text, so the same command works through the operator API.
  'casps.import': command({
    args: Type.Object({ csv: Type.String({ maxLength: CASP_IMPORT_MAX_CHARS }), source: Type.Optional(Str) }),
    run: (d, a, actor) => d.casps.import(a.csv, { source: a.source, actor }),
  }),
};

/** An operator command's arguments against its schema; a 400 naming every problem otherwise. */
export function checkArgs(schema: TSchema, args: unknown): void {
  if (Value.Check(schema, args)) return;
  const errors = describeAjvErrors([...Value.Errors(schema, args)] as never).map(
    (p) => `${p.field === 'body' ? 'args' : p.field}: ${p.reason}`,
  );
  throw new AppError('INVALID_REQUEST', `invalid arguments: ${errors.join('; ')}`, { errors });
}

/** Validates a command's arguments and runs it. */
export async function runCommand(
  deps: CommandDeps,
  name: string,
  args: unknown,
  actor: string,
): Promise<unknown> {
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) throw new AppError('NOT_FOUND', `unknown command ${name}`);
  checkArgs(cmd.args, args);
  return cmd.run(deps, args, actor);
}
