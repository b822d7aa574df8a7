import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assigneeBefore, openedAssignee } from '../../../src/storage/migrations/027-case-opened-assignee.ts';

const opened = { from: null, to: 'open', note: 'Evaluation x: MICA-RPT-001' };
const assign = (note: string, status = 'open') => ({ from: status, to: status, note });

describe('the officer a stored case opened with (migration 027)', () => {
  it('reads each assignment note by position, whatever the names hold', () => {
    assert.equal(assigneeBefore('assigned to bob (was olga)', 'bob'), 'olga');
    assert.equal(assigneeBefore('assigned to bob', 'bob'), null);
    assert.equal(assigneeBefore('assigned to bob (was Smith (Compliance))', 'bob'), 'Smith (Compliance)');
    assert.equal(assigneeBefore('assigned to A (was Z)', 'A (was Z)'), null);
    assert.equal(assigneeBefore('assigned to piotr (was olga): officer olga removed', 'piotr'), 'olga');
    assert.equal(assigneeBefore('unassigned (was olga): officer olga removed, none left', null), 'olga');
    assert.equal(assigneeBefore('assigned to someone else', 'bob'), undefined);
  });

  it('walks the assignments back from the current assignee; status moves and sweep notes are not assignments', () => {
    assert.equal(openedAssignee('olga', [opened]), 'olga');
    assert.equal(openedAssignee(null, [opened]), null);
    assert.equal(
      openedAssignee('piotr', [
        opened,
        { from: 'open', to: 'investigating', note: 'assigned to legal for review' },
        assign('assigned to piotr (was olga)', 'investigating'),
        assign('STR filing deadline missed', 'investigating'),
      ]),
      'olga',
    );
    assert.equal(
      openedAssignee('zoe', [
        opened,
        assign('unassigned (was bob): officer bob removed, none left'),
        assign('assigned to zoe'),
      ]),
      'bob',
    );
    // Opened unassigned, then given to an officer whose name reads like a note.
    assert.equal(openedAssignee('A (was Z)', [opened, assign('assigned to A (was Z)')]), null);
    // A note of another shape: unknown, not guessed.
    assert.equal(openedAssignee('bob', [opened, assign('assigned to someone')]), null);
  });
});
