import { Cron } from 'croner';
import { AppError } from '../errors.ts';

/** A job that can be run on demand (`mica jobs run <name>`) and on a schedule. */
export interface Job {
  run(): Promise<unknown>;
}

export const JOB_NAMES = ['str-sweep', 'audit-maintenance'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** The named jobs of the service. */
export function createJobs(jobs: Record<JobName, Job>) {
  return {
    /** Runs one job now and returns its report. */
    async run(name: string): Promise<unknown> {
      const job = Object.hasOwn(jobs, name) ? jobs[name as JobName] : undefined;
      if (!job) throw new AppError('NOT_FOUND', `unknown job ${name} (one of: ${JOB_NAMES.join(', ')})`);
      return job.run();
    },
  };
}
export type Jobs = ReturnType<typeof createJobs>;

/**
 * Runs a job on a cron pattern in the server process. A run never overlaps the previous one
 * (croner's protect), and stop() waits for a run in progress so shutdown does not cut it off.
 */
export function schedule(
  name: JobName,
  pattern: string,
  jobs: Jobs,
  log: { info(o: object, msg: string): void; error(o: object, msg: string): void },
): { stop(): Promise<void> } {
  if (pattern === 'off') return { stop: async () => {} };
  let running: Promise<unknown> | undefined;
  const cron = new Cron(pattern, { name, protect: true }, async () => {
    running = jobs.run(name).then(
      (report) => log.info({ job: name, report }, 'job finished'),
      (err) => log.error({ job: name, err }, 'job failed'),
    );
    await running;
    running = undefined;
  });
  return {
    async stop() {
      cron.stop();
      await running;
    },
  };
}
