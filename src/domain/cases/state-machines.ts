// Alert and case lifecycles of CONTRACT §5 as data: each status lists the statuses it may move to,
// and each closing status lists the resolutions it takes. The service stores the history entry
// returned here in the item's `history` and maps the errors to 409 / 400.

export type ItemKind = 'alert' | 'case';
export type AlertStatus = 'open' | 'acknowledged' | 'escalated' | 'closed';
export type CaseStatus = 'open' | 'investigating' | 'pending_filing' | 'closed';
export type AlertResolution = 'true_positive' | 'false_positive';
export type CaseResolution = 'str_filed' | 'report_filed' | 'no_action';

interface KindTypes {
  alert: { status: AlertStatus; resolution: AlertResolution };
  case: { status: CaseStatus; resolution: CaseResolution };
}
export type StatusOf<K extends ItemKind> = KindTypes[K]['status'];
export type ResolutionOf<K extends ItemKind> = KindTypes[K]['resolution'];

interface Machine<S extends string, R extends string> {
  initial: S;
  edges: Readonly<Record<S, readonly S[]>>;
  // Target statuses that need a resolution, with the resolutions they accept.
  resolutions: Readonly<Partial<Record<S, readonly R[]>>>;
}

const ALERT: Machine<AlertStatus, AlertResolution> = {
  initial: 'open',
  edges: {
    open: ['acknowledged', 'escalated', 'closed'],
    acknowledged: ['escalated', 'closed'],
    escalated: [],
    closed: [],
  },
  resolutions: { closed: ['true_positive', 'false_positive'] },
};

const CASE: Machine<CaseStatus, CaseResolution> = {
  initial: 'open',
  edges: {
    open: ['investigating', 'closed'],
    investigating: ['pending_filing', 'closed'],
    pending_filing: ['closed'],
    closed: [],
  },
  resolutions: { closed: ['str_filed', 'report_filed', 'no_action'] },
};

const MACHINES: { [K in ItemKind]: Machine<StatusOf<K>, ResolutionOf<K>> } = { alert: ALERT, case: CASE };

export interface TransitionRequest {
  /** Target status as received (unvalidated). */
  to: string;
  /** Required when the target is `closed`; null, undefined and '' all mean "not given". */
  resolution?: string | null;
  note?: string | null;
  /** The key's id, or a part of the service. */
  actor: string;
  /** The person named for the key (its officer or an X-Actor header), recorded beside it. */
  actorName?: string | null;
  at: Date;
}

export interface HistoryEntry {
  /** ISO 8601 UTC. */
  at: string;
  actor: string;
  /** Absent in entries written before it was recorded apart from `actor`. */
  actor_name?: string | null;
  from: string;
  to: string;
  note: string | null;
}

export type TransitionResult<K extends ItemKind> =
  | { ok: true; status: StatusOf<K>; resolution: ResolutionOf<K> | null; historyEntry: HistoryEntry }
  | { ok: false; error: 'INVALID_TRANSITION'; allowed: string[] }
  | { ok: false; error: 'RESOLUTION_REQUIRED' | 'INVALID_RESOLUTION'; allowed: string[] };

function machineOf<K extends ItemKind>(kind: K): Machine<StatusOf<K>, ResolutionOf<K>> {
  const machine = MACHINES[kind];
  if (machine === undefined) throw new RangeError(`unknown item kind: ${String(kind)}`);
  return machine;
}

// Object.hasOwn keeps 'constructor', '__proto__' and friends from passing as statuses.
function edgesFrom<K extends ItemKind>(kind: K, status: string): readonly StatusOf<K>[] {
  const edges = machineOf(kind).edges as Readonly<Record<string, readonly StatusOf<K>[]>>;
  return Object.hasOwn(edges, status) ? (edges[status] ?? []) : [];
}

/** Every status of the kind, in lifecycle order. */
export function statusesOf<K extends ItemKind>(kind: K): StatusOf<K>[] {
  return Object.keys(machineOf(kind).edges) as StatusOf<K>[];
}

/** The status a new alert or case starts in. */
export function initialStatus<K extends ItemKind>(kind: K): StatusOf<K> {
  return machineOf(kind).initial;
}

/** Whether the string is a status of the kind. */
export function isStatus<K extends ItemKind>(kind: K, status: string): status is StatusOf<K> {
  return Object.hasOwn(machineOf(kind).edges, status);
}

/** The statuses reachable in one step (empty for final and unknown statuses). */
export function allowedTransitions<K extends ItemKind>(kind: K, status: string): StatusOf<K>[] {
  return [...edgesFrom(kind, status)];
}

/** Whether no transition leaves the status (closed; for alerts also escalated). */
export function isFinalStatus(kind: ItemKind, status: string): boolean {
  return isStatus(kind, status) && edgesFrom(kind, status).length === 0;
}

/** The resolutions a move to `to` accepts; empty when it takes none. */
export function resolutionsFor<K extends ItemKind>(kind: K, to: string): ResolutionOf<K>[] {
  const table = machineOf(kind).resolutions as Readonly<Record<string, readonly ResolutionOf<K>[]>>;
  return Object.hasOwn(table, to) ? [...(table[to] ?? [])] : [];
}

/**
 * Checks one move of an alert or case and returns its new status, resolution and history entry.
 * The edge is checked first, so an illegal move is INVALID_TRANSITION whatever the resolution.
 */
export function transition<K extends ItemKind>(
  kind: K,
  current: string,
  req: TransitionRequest,
): TransitionResult<K> {
  if (!(req.at instanceof Date) || Number.isNaN(req.at.getTime())) {
    throw new RangeError('transition time must be a valid Date');
  }
  const allowed = edgesFrom(kind, current);
  const to = allowed.find((s) => s === req.to);
  if (to === undefined) return { ok: false, error: 'INVALID_TRANSITION', allowed: [...allowed] };

  const accepted = resolutionsFor(kind, to);
  const given =
    req.resolution === undefined || req.resolution === null || req.resolution === '' ? null : req.resolution;
  let resolution: ResolutionOf<K> | null = null;
  if (accepted.length > 0) {
    if (given === null) return { ok: false, error: 'RESOLUTION_REQUIRED', allowed: accepted };
    const match = accepted.find((r) => r === given);
    if (match === undefined) return { ok: false, error: 'INVALID_RESOLUTION', allowed: accepted };
    resolution = match;
  } else if (given !== null) {
    // A resolution on a move that takes none is a client mistake worth reporting, not ignoring.
    return { ok: false, error: 'INVALID_RESOLUTION', allowed: [] };
  }

  return {
    ok: true,
    status: to,
    resolution,
    historyEntry: {
      at: req.at.toISOString(),
      actor: req.actor,
      actor_name: req.actorName ?? null,
      from: current,
      to,
      note: req.note ?? null,
    },
  };
}
