import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../../src/storage/db.ts';
import {
  startEmbeddedAnalyze,
  statisticsTargetFor,
  tablesToAnalyze,
} from '../../../src/storage/embedded-analyze.ts';

const t = (name: string, relpages: number, reltuples: number, pages: number) => ({
  name,
  relpages,
  reltuples,
  pages,
});

test('never-analyzed tables are analyzed once they have four pages; smaller and empty ones are not', () => {
  assert.deepEqual(
    tablesToAnalyze([t('a', 0, -1, 4), t('b', 0, -1, 3), t('c', 0, -1, 1), t('d', 0, -1, 0)]),
    ['a'],
  );
});

test('a table is analyzed again once it has doubled and grown by at least four pages', () => {
  assert.deepEqual(tablesToAnalyze([t('a', 10, 500, 23)]), []);
  assert.deepEqual(tablesToAnalyze([t('a', 10, 500, 24)]), ['a']);
  assert.deepEqual(tablesToAnalyze([t('tiny', 1, 5, 5)]), []);
  assert.deepEqual(tablesToAnalyze([t('tiny', 1, 5, 6)]), ['tiny']);
  assert.deepEqual(tablesToAnalyze([t('big', 1000, 5e4, 2003)]), []);
  assert.deepEqual(tablesToAnalyze([t('big', 1000, 5e4, 2004)]), ['big']);
  // Shrinking or standing still needs nothing.
  assert.deepEqual(tablesToAnalyze([t('a', 100, 5e3, 80), t('b', 100, 5e3, 100)]), []);
});

test('every grown table in one round, the most grown first', () => {
  const tables = [
    t('large_slow', 1000, 5e4, 2500),
    t('large_fast', 1000, 5e4, 4000),
    t('large_new', 0, -1, 200),
    t('small_new', 0, -1, 4),
    t('too_small_new', 0, -1, 3),
    t('small_grown', 5, 100, 20),
    t('small_same', 5, 100, 5),
  ];
  assert.deepEqual(tablesToAnalyze(tables), [
    'large_new',
    'small_new',
    'large_fast',
    'small_grown',
    'large_slow',
  ]);
});

test('a failed round is reported, and the next round runs again', { timeout: 5000 }, async () => {
  let rounds = 0;
  // A store that refuses every statement: each round fails when it reads the table sizes.
  const refusing = {
    getExecutor() {
      rounds++;
      throw new Error('store refused');
    },
  } as unknown as Db;
  const errors: unknown[] = [];
  const analyze = startEmbeddedAnalyze(refusing, 5, (err) => errors.push(err));
  while (errors.length < 2) await new Promise((r) => setTimeout(r, 5));
  await analyze.stop();
  assert.ok(rounds >= 2);
  assert.match(String(errors[0]), /store refused/);
});

test('large tables are analyzed from a smaller sample, which holds the session a third as long', () => {
  assert.equal(statisticsTargetFor(0), 10);
  assert.equal(statisticsTargetFor(255), 10);
  assert.equal(statisticsTargetFor(256), 3);
  assert.equal(statisticsTargetFor(1_000_000), 3);
});
