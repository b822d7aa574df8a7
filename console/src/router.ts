import { useEffect, useState } from 'preact/hooks';

// Hash routes (#/cases/CASE-2026-000001?x=y): the server serves one page, and a reload keeps the place.

export interface Route {
  path: string[];
  query: URLSearchParams;
  /** A path segment that is no valid percent-encoding (#/cases/%E0%A4%A), kept as typed: nothing is found there. */
  malformed?: string;
}

/**
 * Whose the places in this tab's history are. Every entry visited while signed in is tagged with the
 * sign-in's id (in the entry's history.state, which survives a reload); an entry tagged by a sign-in
 * that has ended (signed out, or the key refused) is taken back to the start page when it is
 * reached again (Back), so no one sees, and no next key opens, the previous officer's searches and
 * cases. An untagged entry (a link opened or pasted) is kept: it is the reader's own.
 */
const TAG = 'micaConsoleSession';
let session: string | null = null;
const listeners = new Set<() => void>();

function tagOf(state: unknown): unknown {
  return state && typeof state === 'object' ? (state as Record<string, unknown>)[TAG] : undefined;
}

/** The start page, replacing the current history entry; the screens showing a route are told. */
export function resetAddress(): void {
  history.replaceState(null, '', location.pathname + location.search);
  for (const l of listeners) l();
}

/**
 * Drops the current entry's place if an ended sign-in left it (true), else tags it as this
 * sign-in's (when signed in).
 */
function claimEntry(): boolean {
  const tag = tagOf(history.state);
  if (tag !== undefined && tag !== session) {
    history.replaceState(null, '', location.pathname + location.search);
    return true;
  }
  if (session !== null && tag !== session) {
    const state = history.state && typeof history.state === 'object' ? history.state : {};
    history.replaceState({ ...state, [TAG]: session }, '');
  }
  return false;
}

/**
 * The sign-in the places visited from now on belong to (null: signed out); set before the first
 * screen is shown, also on a reload (the id is kept with the key), where the entry is still its own.
 */
export function setRouteSession(id: string | null): void {
  session = id;
  if (claimEntry()) for (const l of listeners) l();
}

function current(): Route {
  const raw = location.hash.replace(/^#/, '') || '/cases';
  const [p = '', q = ''] = raw.split('?');
  let malformed: string | undefined;
  const path = p
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        malformed ??= s;
        return s;
      }
    });
  return { path, query: new URLSearchParams(q), ...(malformed !== undefined ? { malformed } : {}) };
}

if (typeof window !== 'undefined') {
  // The screens hear of a new place through here, after the entry is claimed (or dropped).
  window.addEventListener('hashchange', () => {
    claimEntry();
    for (const l of listeners) l();
  });
  // Back to an entry of the same address fires no hashchange; one left by an ended sign-in is still dropped.
  window.addEventListener('popstate', () => {
    if (claimEntry()) for (const l of listeners) l();
  });
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const on = () => setRoute(current());
    listeners.add(on);
    return () => {
      listeners.delete(on);
    };
  }, []);
  return route;
}

/** A link target: a path and the defined, non-empty query values. */
export function href(path: string, query: Record<string, string | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query: Record<string, string | undefined | null> = {}): void {
  location.hash = href(path, query);
}
