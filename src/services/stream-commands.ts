import { type Static, type TSchema, Type } from 'typebox';
import { AppError } from '../errors.ts';
import type { ActionAuditService } from './action-audit.service.ts';
import type { AuditService } from './audit.service.ts';
import { checkArgs } from './commands.ts';

/**
 * Operator commands whose output is a stream of text (exports), not one JSON value. Shared by the
 * CLI working on the store and the operator API, like the JSON commands.
 */
export interface StreamCommandDeps {
  audit: Pick<AuditService, 'export'>;
  actions: Pick<ActionAuditService, 'export'>;
}

interface StreamCommand<S extends TSchema> {
  args: S;
  run: (deps: StreamCommandDeps, args: Static<S>) => AsyncGenerator<string>;
}
const streamCommand = <S extends TSchema>(c: StreamCommand<S>) => c as unknown as StreamCommand<TSchema>;
const Opt = Type.Optional(Type.String({ minLength: 1, maxLength: 256 }));

const exportArgs = {
  client_id: Type.String({ minLength: 1, maxLength: 128 }),
  from: Opt,
  to: Opt,
  rule_id: Opt,
  customer_id: Opt,
  transaction_id: Opt,
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')])),
};

export const STREAM_COMMANDS: Record<string, StreamCommand<TSchema>> = {
  'audit.export': streamCommand({
    args: Type.Object(exportArgs),
    run: (d, { client_id, format, ...q }) => d.audit.export(client_id, q, format ?? 'csv'),
  }),
  /** The executed actions (GET /api/mica/audit/actions), with the same filters plus the type. */
  'audit.actions': streamCommand({
    args: Type.Object({ ...exportArgs, action_type: Opt }),
    run: (d, { client_id, format, ...q }) => d.actions.export(client_id, q, format ?? 'csv'),
  }),
};

/** Validates a stream command's arguments and starts it (filters are checked before the first chunk). */
export async function startStreamCommand(
  deps: StreamCommandDeps,
  name: string,
  args: unknown,
): Promise<AsyncGenerator<string>> {
  const cmd = Object.hasOwn(STREAM_COMMANDS, name) ? STREAM_COMMANDS[name] : undefined;
  if (!cmd) throw new AppError('NOT_FOUND', `unknown command ${name}`);
  checkArgs(cmd.args, args);
  const gen = cmd.run(deps, args);
  // Run up to the first chunk now, so argument errors surface before any output is written.
  const first = await gen.next();
  return (async function* () {
    if (!first.done) yield first.value;
    yield* gen;
  })();
}
