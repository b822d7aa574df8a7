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
  audit: Pick<AuditService, 'filter' | 'export'>;
  actions: Pick<ActionAuditService, 'filter' | 'export'>;
}

/** A started stream: its text, and for audit exports the chain position it is complete through. */
export interface StartedStream {
  chunks: AsyncGenerator<string>;
  throughSeq?: number;
}

interface StreamCommand<S extends TSchema> {
  args: S;
  run: (deps: StreamCommandDeps, args: Static<S>) => Promise<StartedStream>;
}
const streamCommand = <S extends TSchema>(c: StreamCommand<S>) => c as unknown as StreamCommand<TSchema>;
const Opt = Type.Optional(Type.String({ minLength: 1, maxLength: 256 }));
const Position = Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));

const exportArgs = {
  client_id: Type.String({ minLength: 1, maxLength: 128 }),
  from: Opt,
  to: Opt,
  rule_id: Opt,
  customer_id: Opt,
  transaction_id: Opt,
  after_seq: Position,
  through_seq: Position,
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')])),
};

export const STREAM_COMMANDS: Record<string, StreamCommand<TSchema>> = {
  'audit.export': streamCommand({
    args: Type.Object(exportArgs),
    run: async (d, { client_id, format, ...q }) => {
      const filter = await d.audit.filter(client_id, q, false);
      return { chunks: d.audit.export(filter, format ?? 'csv'), throughSeq: filter.through_seq };
    },
  }),
  /** The executed actions (GET /api/mica/audit/actions), with the same filters plus the type. */
  'audit.actions': streamCommand({
    args: Type.Object({ ...exportArgs, action_type: Opt }),
    run: async (d, { client_id, format, ...q }) => {
      const filter = await d.actions.filter(client_id, q, false);
      return { chunks: d.actions.export(filter, format ?? 'csv'), throughSeq: filter.through_seq };
    },
  }),
};

/** Validates a stream command's arguments and starts it (filters are checked before the first chunk). */
export async function startStreamCommand(
  deps: StreamCommandDeps,
  name: string,
  args: unknown,
): Promise<StartedStream> {
  const cmd = Object.hasOwn(STREAM_COMMANDS, name) ? STREAM_COMMANDS[name] : undefined;
  if (!cmd) throw new AppError('NOT_FOUND', `unknown command ${name}`);
  checkArgs(cmd.args, args);
  const { chunks, throughSeq } = await cmd.run(deps, args);
  // Run up to the first chunk now, so argument errors surface before any output is written.
  const first = await chunks.next();
  return {
    chunks: (async function* () {
      if (!first.done) yield first.value;
      yield* chunks;
    })(),
    throughSeq,
  };
}
