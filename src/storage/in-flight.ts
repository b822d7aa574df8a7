/**
 * Requests in flight, each under a small integer id that is reused once its answer is taken: an
 * array of slots and a list of free ids, not a Map.
 *
 * Why not a Map: V8 keeps a Map's entries in a table that is replaced by a new one every time
 * deletions have used it up, and the replaced table keeps a pointer to its successor. Once the
 * Map has lived long enough to be in the old generation, each dead table is still scanned as a
 * root by every minor GC until the next full one, so everything that passed through the Map
 * since then stays alive: here the callers' promise callbacks and, through them, their whole
 * requests. A 6-second test with a Map of 8 such entries copied 50 MB per minor GC, an array ring
 * 0.4 MB. (In this service the Map was not what kept most garbage alive: removing it changed the
 * measured minor GCs by no more than noise; see bench/RESULTS.md.) An overwritten array slot
 * leaves nothing behind.
 */
export class InFlight<T> {
  #slots: Array<T | undefined> = [];
  #free: number[] = [];

  /** Keeps `value` and returns its id. */
  add(value: T): number {
    const id = this.#free.pop() ?? this.#slots.length;
    this.#slots[id] = value;
    return id;
  }

  /** The value kept under `id`, removed; undefined when there is none (unknown or already taken). */
  take(id: number): T | undefined {
    const value = Number.isInteger(id) ? this.#slots[id] : undefined;
    if (value === undefined) return undefined;
    this.#slots[id] = undefined;
    this.#free.push(id);
    return value;
  }

  /** Removes and returns every value still kept. */
  takeAll(): T[] {
    const all = this.#slots.filter((v): v is T => v !== undefined);
    this.#slots = [];
    this.#free = [];
    return all;
  }

  /** Values kept now: every slot ever used, less the free ones. */
  get size(): number {
    return this.#slots.length - this.#free.length;
  }
}
