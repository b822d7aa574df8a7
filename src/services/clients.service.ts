import { reassignmentPlan } from '../domain/cases/assignment.ts';
import { changeTime } from '../domain/cases/change-time.ts';
import { AppError } from '../errors.ts';
import type { ClientRow, ClientsRepo } from '../storage/clients.repo.ts';
import type { OperatorAuditRepo } from '../storage/operator-audit.repo.ts';
import { createTtlLookup } from './ttl-lookup.ts';

const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Tenants: creation (audited) and a short-lived cache of their settings for the hot path. */
export function createClientsService(deps: {
  clients: ClientsRepo;
  audit: Pick<OperatorAuditRepo, 'record'>;
  cacheMs: number;
  /** Checks settings before they are stored; throws with a message on a bad value. */
  validateSettings: (settings: Record<string, unknown>) => void;
  /** Keys of an officer that still work: an officer is not removed while one does. */
  activeOfficerKeys?: (clientId: string, officer: string) => Promise<string[]>;
}) {
  const cache = createTtlLookup<string, ClientRow | undefined>({
    ttlMs: deps.cacheMs,
    load: (clientId) => deps.clients.get(clientId),
  });
  return {
    async create(
      clientId: string,
      opts: { name?: string; settings?: Record<string, unknown>; actor: string },
    ) {
      if (!CLIENT_ID.test(clientId))
        throw new AppError('INVALID_REQUEST', 'client id: 1-64 characters of letters, digits, _ . -');
      if (opts.settings) deps.validateSettings(opts.settings);
      const created = await deps.clients.insert({
        client_id: clientId,
        name: opts.name ?? clientId,
        settings: opts.settings,
      });
      if (!created) throw new AppError('INVALID_REQUEST', `client ${clientId} already exists`);
      await deps.audit.record({
        client_id: clientId,
        actor: opts.actor,
        action: 'client.created',
        subject: clientId,
        // The settings it starts with, as a later change of them is recorded.
        ...(opts.settings && Object.keys(opts.settings).length > 0
          ? { detail: { settings: opts.settings } }
          : {}),
      });
      cache.delete(clientId);
      return { client_id: clientId, name: opts.name ?? clientId, settings: opts.settings ?? {} };
    },
    async setSettings(clientId: string, settings: Record<string, unknown>, actor: string) {
      deps.validateSettings(settings);
      if (!(await deps.clients.updateSettings(clientId, settings)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      await deps.audit.record({
        client_id: clientId,
        actor,
        action: 'client.settings_changed',
        subject: clientId,
        detail: settings,
      });
      cache.delete(clientId);
      return { client_id: clientId, settings };
    },
    get(clientId: string): Promise<ClientRow | undefined> {
      return cache.get(clientId);
    },
    /** Adds a compliance officer to whom the client's new cases are assigned. */
    async addOfficer(clientId: string, officer: string, actor: string) {
      if (!(await deps.clients.get(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      const added = await deps.clients.addOfficer(clientId, officer);
      if (added)
        await deps.audit.record({ client_id: clientId, actor, action: 'officer.added', subject: officer });
      return { client_id: clientId, officers: await deps.clients.officers(clientId) };
    },
    async removeOfficer(clientId: string, officer: string, actor: string) {
      if (!(await deps.clients.get(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      // Its keys would go on recording moves by someone no longer an officer of the client.
      const keys = (await deps.activeOfficerKeys?.(clientId, officer)) ?? [];
      if (keys.length > 0)
        throw new AppError(
          'INVALID_REQUEST',
          `officer ${officer} still has keys that work (${keys.join(', ')}): revoke them first (keys revoke <key_id>)`,
        );
      // Its open cases go to the remaining officers (fewest open cases first): left with someone
      // who is no longer an officer, nobody would work them, and they could not be assigned back.
      const reassigned = await deps.clients.removeOfficer(clientId, officer, (cases, loads) =>
        reassignmentPlan(officer, cases, loads).map((m) => ({
          ...m,
          entry: {
            at: changeTime(new Date(), m.case.updated_at).toISOString(),
            actor,
            actor_name: null,
            from: m.case.status,
            to: m.case.status,
            note: m.note,
          },
        })),
      );
      if (!reassigned) throw new AppError('NOT_FOUND', `officer ${officer} not found for client ${clientId}`);
      await deps.audit.record({
        client_id: clientId,
        actor,
        action: 'officer.removed',
        subject: officer,
        ...(reassigned.length > 0 ? { detail: { reassigned } } : {}),
      });
      return { client_id: clientId, officers: await deps.clients.officers(clientId), reassigned };
    },
    async officers(clientId: string) {
      if (!(await deps.clients.get(clientId)))
        throw new AppError('NOT_FOUND', `client ${clientId} not found`);
      return { client_id: clientId, officers: await deps.clients.officers(clientId) };
    },
    count: () => deps.clients.count(),
  };
}
export type ClientsService = ReturnType<typeof createClientsService>;
