/**
 * Who acted: an API key (its id, and the person named for it: the key's officer or an X-Actor
 * header) or a part of the service (`system:str-sweep`, `webhook:kyc`…), which has no name.
 */
export interface Actor {
  id: string;
  name: string | null;
  key: boolean;
}

export const systemActor = (id: string): Actor => ({ id, name: null, key: false });

/** The evaluator id of the audit rows: `key:<key id>`, the person in parentheses; else the id. */
export function evaluatorIdOf(a: Actor): string {
  return a.key ? `key:${a.id}${a.name ? ` (${a.name})` : ''}` : a.id;
}
