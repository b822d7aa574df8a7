import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { createDeps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { duplicateKeyPath } from '../http/plugins/duplicate-keys.ts';
import { CHAIN_SEQ_HEADER } from '../services/audit.service.ts';
import { acquireStoreLock, readServerInfo } from '../storage/store-lock.ts';
import { registerCaspCommands } from './casps.ts';
import { readCheckpointsFile } from './checkpoints-file.ts';
import { registerListCommands } from './lists.ts';
import { registerWebhookCommands } from './webhooks.ts';

/** One parsed CLI invocation: the operator command name and its JSON arguments. */
interface Invocation {
  name: string;
  args: Record<string, unknown>;
  /** A streaming command: its text goes to stdout as it comes. */
  stream?: boolean;
  /**
   * The client a streaming command reads, checked to exist first (as the JSON commands check it):
   * once a stream has started, an unknown client could only show as an empty export.
   */
  client?: string;
}

const positiveNumber = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
};
/** 0 or more: a rotation's grace may be none (the old key stops at once, e.g. after a leak). */
const nonNegativeNumber = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a number, 0 or more');
  return n;
};
/** A chain position: a whole number, 0 or more. */
const chainPosition = (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('must be a whole number, 0 or more');
  return n;
};
const jsonObject = (v: string) => {
  let o: unknown;
  try {
    o = JSON.parse(v);
  } catch {
    /* reported below */
  }
  if (!o || typeof o !== 'object' || Array.isArray(o))
    throw new InvalidArgumentError('must be a JSON object');
  // As on the API (plugins/json-body.ts): JSON.parse would keep the last of two, silently.
  const duplicate = duplicateKeyPath(v, o);
  if (duplicate !== undefined)
    throw new InvalidArgumentError(
      duplicate === 'body' ? 'names a key twice in one object' : `names ${duplicate} twice`,
    );
  return o as Record<string, unknown>;
};

/** Whether commander has written an error of its own (as JSON, see buildProgram). */
let commanderReported = false;

/** Declares the command tree; each leaf records what to run instead of running it. */
function buildProgram(found: (inv: Invocation) => void): Command {
  const program = new Command('mica').description('Operate the MiCA compliance service').exitOverride();
  // Every error is one JSON line on stderr, commander's own too (an unknown command, a missing or
  // bad option); set before the subcommands, which inherit it.
  program.configureOutput({
    outputError: (text, write) => {
      commanderReported = true;
      write(`${JSON.stringify({ error: text.replace(/^error: /, '').trim() })}\n`);
    },
  });
  program
    .command('migrate')
    .description('apply database migrations')
    .action(() => found({ name: 'migrate', args: {} }));

  const clients = program.command('clients').description('tenants');
  clients
    .command('create <client_id>')
    .option('--name <name>', 'display name')
    .option('--settings <json>', 'rule settings (JSON object)', jsonObject)
    .action((client_id: string, o: { name?: string; settings?: Record<string, unknown> }) =>
      found({ name: 'clients.create', args: { client_id, name: o.name, settings: o.settings } }),
    );
  clients
    .command('settings <client_id> <json>')
    .description(
      'replace the client rule settings (thresholds, high-risk countries, disabled rules, calendar)',
    )
    .action((client_id: string, json: string) =>
      found({ name: 'clients.settings', args: { client_id, settings: jsonObject(json) } }),
    );

  clients
    .command('show <client_id>')
    .description('the client: name, stored settings (clients settings replaces them whole), officers')
    .action((client_id: string) => found({ name: 'clients.show', args: { client_id } }));

  const officers = program.command('officers').description('compliance officers who are assigned cases');
  for (const verb of ['add', 'remove'] as const)
    officers
      .command(`${verb} <client_id> <officer>`)
      .action((client_id: string, officer: string) =>
        found({ name: `officers.${verb}`, args: { client_id, officer } }),
      );
  officers
    .command('list <client_id>')
    .action((client_id: string) => found({ name: 'officers.list', args: { client_id } }));

  const audit = program.command('audit').description('the audit trail of evaluations');
  audit
    .command('verify')
    .description('walk the client hash chain and report the first broken link')
    .requiredOption('--client <client_id>')
    .option('--checkpoints <file>', 'also verify against checkpoints exported earlier (audit checkpoints)')
    .action((o: { client: string; checkpoints?: string }) =>
      found({
        name: 'audit.verify',
        args: {
          client_id: o.client,
          ...(o.checkpoints === undefined ? {} : { checkpoints: readCheckpointsFile(o.checkpoints) }),
        },
      }),
    );
  audit
    .command('operator')
    .description(
      "the operator's actions, oldest first: clients, settings, keys, officers, webhooks, list and CASP imports",
    )
    .option('--client <client_id>', "one client's (every event when none is given)")
    .option('--limit <n>', 'the newest n events (default 1000)', (v: string) => Number(v))
    .action((o: { client?: string; limit?: number }) =>
      found({ name: 'audit.operator', args: { client_id: o.client, limit: o.limit } }),
    );
  audit
    .command('checkpoint')
    .description('record the chain head (hash, count, time) now; every client when none is given')
    .option('--client <client_id>')
    .action((o: { client?: string }) => found({ name: 'audit.checkpoint', args: { client_id: o.client } }));
  audit
    .command('checkpoints')
    .description('export the recorded checkpoints, to keep outside this database')
    .requiredOption('--client <client_id>')
    .action((o: { client: string }) => found({ name: 'audit.checkpoints', args: { client_id: o.client } }));
  audit
    .command('export')
    .requiredOption('--client <client_id>')
    .option('--from <date>', 'ISO 8601 date or date-time (inclusive)')
    .option('--to <date>', 'ISO 8601 date or date-time (exclusive)')
    .option('--rule <rule_id>')
    .option('--customer <customer_id>')
    .option('--transaction <transaction_id>')
    .option(
      '--after-seq <n>',
      'only evaluations at chain positions after n: the through_seq of the previous export, for exactly what was committed since',
      chainPosition,
    )
    .option(
      '--through-seq <n>',
      'only evaluations up to chain position n (default: the chain head now)',
      chainPosition,
    )
    // JSON by default, as every command prints (CONTRACT §1); CSV when asked for.
    .option('--format <format>', 'json or csv', 'json')
    .option(
      '--actions',
      'the executed actions (type, outcome, time, executor, evidence) instead of the rule rows',
    )
    .option('--action-type <type>', 'with --actions: only this action, e.g. create_case')
    .action((o: Record<string, string | number | boolean | undefined>) => {
      // Without --actions the rule rows would be exported, unfiltered: a much larger, different file.
      if (o.actionType !== undefined && !o.actions)
        throw new InvalidArgumentError('--action-type filters executed actions: give --actions with it');
      found({
        name: o.actions ? 'audit.actions' : 'audit.export',
        stream: true,
        client: o.client as string,
        args: {
          client_id: o.client,
          from: o.from,
          to: o.to,
          rule_id: o.rule,
          customer_id: o.customer,
          transaction_id: o.transaction,
          after_seq: o.afterSeq,
          through_seq: o.throughSeq,
          format: o.format,
          ...(o.actions && o.actionType !== undefined ? { action_type: o.actionType } : {}),
        },
      });
    });

  const keys = program.command('keys').description('API keys (shown once, stored as SHA-256)');
  keys
    .command('create <client_id>')
    .option('--role <role>', 'standard or admin', 'standard')
    .addOption(
      new Option(
        '--sandbox',
        'a mica_test_ key: only where MICA_ENVIRONMENT=sandbox (the default there); refused elsewhere',
      ),
    )
    .addOption(
      new Option(
        '--live',
        'a mica_live_ key: only on the live service (the default there); refused elsewhere',
      ).conflicts('sandbox'),
    )
    .option('--expires-in-days <n>', 'lifetime in days (default 90)', positiveNumber)
    .option('--officer <name>', 'compliance officer recorded as the actor')
    .action(
      (
        client_id: string,
        o: { role: string; sandbox?: boolean; live?: boolean; expiresInDays?: number; officer?: string },
      ) =>
        found({
          name: 'keys.create',
          args: {
            client_id,
            role: o.role,
            // Neither: the environment of the service that runs the command (the server's, when
            // it holds the store); one that names the other environment is refused there.
            ...(o.sandbox ? { sandbox: true } : o.live ? { sandbox: false } : {}),
            expires_in_days: o.expiresInDays,
            officer: o.officer,
          },
        }),
    );
  keys
    .command('list <client_id>')
    .description("a client's keys: ids, role, environment, officer, dates, state (never the keys)")
    .action((client_id: string) => found({ name: 'keys.list', args: { client_id } }));
  keys
    .command('revoke <key_id>')
    .action((key_id: string) => found({ name: 'keys.revoke', args: { key_id } }));
  keys
    .command('rotate <key_id>')
    .option(
      '--grace-hours <n>',
      'how long the old key keeps working (default 24; 0: it stops at once)',
      nonNegativeNumber,
    )
    .option(
      '--expires-in-days <n>',
      'lifetime of the new key (default: as long as the old key was issued for)',
      positiveNumber,
    )
    .action((key_id: string, o: { graceHours?: number; expiresInDays?: number }) =>
      found({
        name: 'keys.rotate',
        args: { key_id, grace_hours: o.graceHours, expires_in_days: o.expiresInDays },
      }),
    );
  registerCaspCommands(program, found);
  registerListCommands(program, found);
  registerWebhookCommands(program, found);
  return program;
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** Sends a streaming command to the server and copies its output to stdout. */
async function streamThroughServer(server: { url: string; token: string }, inv: Invocation, args: object) {
  const res = await fetch(`${server.url}/api/admin/streams/${inv.name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  });
  if (!res.ok) {
    const body = (await res.json()) as { error?: { code: string; message: string } };
    throw new AppError((body.error?.code as never) ?? 'INTERNAL_ERROR', body.error?.message ?? 'failed');
  }
  reportCut(args, res.headers.get(CHAIN_SEQ_HEADER) ?? undefined);
  for await (const chunk of res.body ?? []) await writeOut(Buffer.from(chunk));
}

/**
 * Says on stderr which chain position an audit export by positions (--after-seq, --through-seq)
 * is complete through, before its rows: the --after-seq of the next export. stdout holds only the
 * export itself; an export by dates stays silent there, as every command that succeeds.
 */
function reportCut(args: object, throughSeq: number | string | undefined) {
  const byPosition = 'after_seq' in args || 'through_seq' in args;
  if (byPosition && throughSeq !== undefined)
    process.stderr.write(`${JSON.stringify({ through_seq: Number(throughSeq) })}\n`);
}

/** Writes to stdout, waiting when the pipe is full (an export can be large). */
function writeOut(chunk: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(chunk)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

/** Runs a JSON command through the server's operator API. */
async function commandThroughServer(
  server: { url: string; token: string },
  name: string,
  args: object,
  actor: string,
): Promise<unknown> {
  const res = await fetch(`${server.url}/api/admin/commands/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ args, actor }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { code: string; message: string } };
  if (!res.ok)
    throw new AppError((body.error?.code as never) ?? 'INTERNAL_ERROR', body.error?.message ?? 'failed');
  return body.result;
}

/** Runs one command: through a running server's operator API when it holds the store, else directly. */
async function execute(inv: Invocation): Promise<unknown> {
  const config = loadConfig();
  const actor = `cli:${process.env.USER ?? 'operator'}`;
  const args = dropUndefined(inv.args);
  const check = inv.client === undefined ? undefined : { client_id: inv.client };
  if (config.storage === 'pglite') {
    const server = readServerInfo(config.MICA_DATA_DIR);
    if (server) {
      if (check) await commandThroughServer(server, 'clients.check', check, actor);
      if (inv.stream) return streamThroughServer(server, inv, args);
      return commandThroughServer(server, inv.name, args, actor);
    }
  }
  const lock = config.storage === 'pglite' ? acquireStoreLock(config.MICA_DATA_DIR) : undefined;
  try {
    const deps = await createDeps(config, { skipMigrations: inv.name === 'migrate' });
    try {
      if (check) await deps.commands('clients.check', check, actor);
      if (inv.stream) {
        const { chunks, throughSeq } = await deps.streams(inv.name, args);
        reportCut(args, throughSeq);
        for await (const chunk of chunks) await writeOut(chunk);
        return undefined;
      }
      return await deps.commands(inv.name, args, actor);
    } finally {
      await deps.close();
    }
  } finally {
    lock?.release();
  }
}

/**
 * The error line of a failed parse. A command group given without its command (`mica keys`) makes
 * commander print the group's help and throw "(outputHelp)", which says nothing to a script.
 */
function errorText(e: Error & { code?: string }, argv: string[]): string {
  if (e.code !== 'commander.help') return e.message;
  const group = argv.filter((a) => !a.startsWith('-')).join(' ');
  return `missing command: ${group ? `mica ${group} <command>` : 'mica <command>'}, one of those listed above`;
}

async function main(argv: string[]): Promise<number> {
  let inv: Invocation | undefined;
  const program = buildProgram((i) => {
    inv = i;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    const code = (e as { exitCode?: number }).exitCode;
    // Commander reports most of its errors itself; anything else (an unreadable file, an argument
    // parser's refusal that commander rethrows) is reported here.
    if (code !== 0 && !commanderReported)
      process.stderr.write(`${JSON.stringify({ error: errorText(e as Error & { code?: string }, argv) })}\n`);
    return code === 0 ? 0 : 1;
  }
  if (!inv) {
    program.outputHelp({ error: true });
    return 1;
  }
  try {
    const result = await execute(inv);
    if (!inv.stream) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    // A check that found a problem (audit verify) says so in its exit code too.
    return (result as { ok?: unknown } | undefined)?.ok === false ? 1 : 0;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`${JSON.stringify({ error: message })}\n`);
    return 1;
  }
}

// A reader that stops early (`mica audit export … | head`) closes the pipe: the output is no
// longer wanted, which is not an error of the command. Without a listener Node would print the
// EPIPE with its stack trace. (A lock left by exiting here is stale by its pid.)
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  process.stderr.write(`${JSON.stringify({ error: `stdout: ${err.message}` })}\n`);
  process.exit(1);
});

/**
 * Resolves once everything written to the stream so far has been handed to the OS. A write to a
 * pipe that returned true may still be queued in the process (pipes are asynchronous on Linux),
 * and process.exit() drops what is queued: an export read slowly (`| upload`) lost its last rows
 * and still exited 0. Writes complete in order, so an empty write's callback marks the end.
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}

main(process.argv.slice(2)).then(async (code) => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
});
