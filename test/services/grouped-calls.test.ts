import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupedCalls } from '../../src/services/grouped-calls.ts';

// Calls that arrive while a group is on its way go together in the next group.

/** A group runner that records each group and answers when released. */
function recorder(fail: (input: number) => boolean = () => false) {
  const groups: number[][] = [];
  const releases: (() => void)[] = [];
  const run = async (inputs: number[]) => {
    groups.push(inputs);
    await new Promise<void>((resolve) => releases.push(resolve));
    if (inputs.some(fail)) throw new Error(`group ${inputs.join(',')} failed`);
    return inputs.map((n) => n * 10);
  };
  /** Releases the groups sent so far, one after the other, until nothing waits. */
  const drain = async () => {
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { groups, run, drain };
}

test('a call that finds no group on its way is sent at once, alone', async () => {
  const { groups, run, drain } = recorder();
  const calls = new GroupedCalls(run, 10);
  const answer = calls.call(1);
  assert.deepEqual(groups, [[1]]);
  await drain();
  assert.equal(await answer, 10);
});

test('calls that arrive while a group is on its way go together in the next group, each answered with its own output', async () => {
  const { groups, run, drain } = recorder();
  const calls = new GroupedCalls(run, 10);
  const answers = [1, 2, 3, 4].map((n) => calls.call(n));
  await drain();
  assert.deepEqual(groups, [[1], [2, 3, 4]]);
  assert.deepEqual(await Promise.all(answers), [10, 20, 30, 40]);
});

test('a group holds at most its maximum; the rest go in the groups after it', async () => {
  const { groups, run, drain } = recorder();
  const calls = new GroupedCalls(run, 2);
  const answers = [1, 2, 3, 4, 5, 6].map((n) => calls.call(n));
  await drain();
  assert.deepEqual(groups, [[1], [2, 3], [4, 5], [6]]);
  assert.deepEqual(await Promise.all(answers), [10, 20, 30, 40, 50, 60]);
});

test('a failed group is sent again one call at a time, so only the offending call fails', async () => {
  const { groups, run, drain } = recorder((n) => n === 3);
  const calls = new GroupedCalls(run, 10);
  const answers = [1, 2, 3, 4].map((n) => calls.call(n).catch((err: Error) => err.message));
  await drain();
  assert.deepEqual(groups, [[1], [2, 3, 4], [2], [3], [4]]);
  assert.deepEqual(await Promise.all(answers), [10, 20, 'group 3 failed', 40]);
});
