import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockList } from '../../../src/domain/extract/block-list.ts';

// Long enough to span several blocks (of 4,096), with values repeated in each.
const VALUES = Array.from({ length: 10_000 }, (_, i) => `v${i % 3_000}`);

function filled(): BlockList<string> {
  const list = new BlockList<string>();
  for (const value of VALUES) list.push(value);
  return list;
}

test('a block list holds its values in the order pushed, across its blocks', () => {
  const list = filled();
  assert.equal(list.length, VALUES.length);
  for (let i = 0; i < VALUES.length; i++) assert.equal(list.at(i), VALUES[i]);
});

test('a block list finds a value from any place on, and back from any place, as an array does', () => {
  const list = filled();
  for (const value of ['v0', 'v95', 'v2999', 'none']) {
    for (const from of [0, 1, 4_095, 4_096, 4_097, 6_000, 8_191, 8_192, 9_999]) {
      assert.equal(list.indexOf(value, from), VALUES.indexOf(value, from), `${value} from ${from}`);
      assert.equal(list.lastIndexOf(value, from), VALUES.lastIndexOf(value, from), `${value} back from ${from}`);
    }
  }
});

test('a block list joins its strings as an array joins them', () => {
  assert.equal(filled().join(), VALUES.join(''));
  const short = new BlockList<string>();
  short.push('a');
  short.push('b');
  assert.equal(short.join(), 'ab');
  assert.equal(new BlockList<string>().join(), '');
});
