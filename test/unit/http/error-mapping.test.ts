import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { renderError, toAppError } from '../../../src/http/plugins/error-handler.ts';

describe('error mapping', () => {
  it('a lost database connection is a retryable 503, not a 500', () => {
    for (const err of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
    ]) {
      const mapped = toAppError(err);
      assert.equal(mapped.status, 503, err.message);
      assert.equal(mapped.code, 'SERVICE_UNAVAILABLE');
      assert.equal(mapped.headers?.['retry-after'], '5');
    }
  });

  it('a 503 says nothing was recorded only when no statement reached the store', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    assert.match(toAppError(refused).message, /nothing was recorded/);
    assert.match(
      toAppError(new Error('timeout exceeded when trying to connect')).message,
      /nothing was recorded/,
    );
    // Cut while a write was in flight: it may have committed without the acknowledgement arriving.
    for (const cut of [
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ])
      assert.match(toAppError(cut).message, /whether this request was recorded is unknown/);
  });

  it('anything else unexpected is a 500 that says nothing of its cause', () => {
    const mapped = toAppError(new Error('relation "secret_table" does not exist at SELECT …'));
    assert.equal(mapped.status, 500);
    const body = JSON.stringify(renderError(mapped, 'nested'));
    assert.ok(!body.includes('secret_table'));
  });

  it('lists at most 100 problems, and counts the rest', () => {
    const errors = Array.from({ length: 250 }, (_, i) => `x.${i}: Required`);
    const e = new AppError('INVALID_REQUEST', 'Invalid request: x.0: Required', { field: 'x.0', errors });
    for (const listed of [
      (renderError(e, 'flat') as { details: { errors: string[] } }).details.errors,
      (renderError(e, 'nested') as { error: { details: { errors: string[] } } }).error.details.errors,
    ]) {
      assert.equal(listed.length, 101);
      assert.equal(listed[99], 'x.99: Required');
      assert.equal(listed[100], 'body: 150 more problems not listed');
    }
  });

  it('renders each format', () => {
    const e = new AppError('INVALID_REQUEST', 'Invalid request: x: Required', {
      field: 'x',
      reason: 'Required',
      errors: ['x: Required'],
    });
    assert.deepEqual(renderError(e, 'flat'), {
      error: 'Invalid request: x: Required',
      type: 'VALIDATION',
      details: { errors: ['x: Required'] },
      statusCode: 400,
    });
    assert.equal((renderError(e, 'webhook') as { error: { code: string } }).error.code, 'BAD_REQUEST');
    const rl = new AppError('RATE_LIMITED', 'Rate limit exceeded', {
      limit: 100,
      remaining: 0,
      reset_at: 'x',
      retry_after: 3,
    });
    assert.deepEqual(renderError(rl, 'flat').details, { limit: 100, remaining: 0, reset_at: 'x' });
  });
});
