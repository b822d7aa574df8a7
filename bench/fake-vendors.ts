import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type FakeVendor, startFakeVendor } from '../test/helpers/fake-vendors.ts';

/**
 * The three wallet-screening vendors of the tests (test/helpers/fake-vendors.ts: HTTP servers on
 * 127.0.0.1 speaking each vendor's protocol), each answering after BENCH_VENDOR_DELAY_MS (default
 * 50), in their own process so that the load generator's event loop does not delay them.
 * Prints `VENDORS {"vendor_a": url, …}` once listening. SIGUSR2 clears the recorded service times;
 * SIGTERM prints `VENDOR_STATS {…}` (each vendor's own time per call, arrival → answer written,
 * exact percentiles) and exits. With BENCH_VENDOR_OWN_FILE set, it first writes there, per address
 * screened, the calls it got and the longest own time among them: a screening waits for the
 * slowest of its parallel vendor calls, so that is the vendors' own share of its latency.
 * `VENDOR_LOOP {…}` gives this process's event-loop delay over the same span: a call that arrives
 * while the loop is held is stamped late, so that much of a call's time is not counted as its own.
 */
const delayMs = Number(process.env.BENCH_VENDOR_DELAY_MS ?? 50);
const names = ['vendor_a', 'vendor_b', 'vendor_c'] as const;
const vendors: FakeVendor[] = await Promise.all(names.map((n) => startFakeVendor(n)));
const served: Record<string, number[]> = {};
/** Per address: calls answered and the longest own time among them. */
const byAddress = new Map<string, { calls: number; maxMs: number }>();
vendors.forEach((v, i) => {
  const name = names[i]!;
  served[name] = [];
  v.delayMs = delayMs;
  v.record = false;
  v.onServed = (ms, address) => {
    served[name]!.push(ms);
    const a = byAddress.get(address);
    if (a) {
      a.calls++;
      a.maxMs = Math.max(a.maxMs, ms);
    } else byAddress.set(address, { calls: 1, maxMs: ms });
  };
});
process.stdout.write(
  `VENDORS ${JSON.stringify(Object.fromEntries(names.map((n, i) => [n, vendors[i]!.url])))}\n`,
);

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! : Number.NaN;
};
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
process.on('SIGUSR2', () => {
  for (const n of names) served[n]!.length = 0;
  byAddress.clear();
  loop.reset();
});
process.on('SIGTERM', () => {
  const ownFile = process.env.BENCH_VENDOR_OWN_FILE;
  if (ownFile) writeFileSync(ownFile, JSON.stringify(Object.fromEntries(byAddress)));
  const stats = Object.fromEntries(
    names.map((n) => {
      const xs = served[n]!;
      return [n, { calls: xs.length, p50: pct(xs, 0.5), p99: pct(xs, 0.99), max: pct(xs, 1) }];
    }),
  );
  const ms = (ns: number) => ns / 1e6;
  const delay = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
  process.stdout.write(`VENDOR_LOOP ${JSON.stringify(delay)}\nVENDOR_STATS ${JSON.stringify(stats)}\n`, () =>
    process.exit(0),
  );
});
