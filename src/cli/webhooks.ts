import type { Command } from 'commander';

type Found = (inv: { name: string; args: Record<string, unknown> }) => void;

/** `webhooks add|list|remove` and `jobs run <job>`. */
export function registerWebhookCommands(program: Command, found: Found): void {
  const webhooks = program
    .command('webhooks')
    .description('vendor webhook registrations (secrets are stored encrypted and shown as fingerprints)');
  webhooks
    .command('add <kind>')
    .description('register txmon-a, txmon-b, kyc or screening for a client; again to add a secret (rotation)')
    .requiredOption('--client <client_id>', 'the tenant the vendor delivers for')
    .requiredOption('--secret <secret>', 'the shared secret configured at the vendor')
    .action((kind: string, o: { client: string; secret: string }) =>
      found({ name: 'webhooks.add', args: { kind, client_id: o.client, secret: o.secret } }),
    );
  webhooks
    .command('list')
    .option('--client <client_id>', 'only this client')
    .action((o: { client?: string }) => found({ name: 'webhooks.list', args: { client_id: o.client } }));
  webhooks
    .command('remove <id>')
    .description('remove a registration, or only one of its secrets')
    .option('--secret-fingerprint <fingerprint>', 'remove only this secret (as shown by list)')
    .action((id: string, o: { secretFingerprint?: string }) =>
      found({ name: 'webhooks.remove', args: { id, secret_fingerprint: o.secretFingerprint } }),
    );

  const jobs = program.command('jobs').description('scheduled work, run on demand');
  jobs
    .command('run <job>')
    .description('run a job now (str-sweep, audit-maintenance)')
    .action((job: string) => found({ name: 'jobs.run', args: { job } }));
}
