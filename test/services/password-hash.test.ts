import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, unusableHash, verifyPassword } from '../../src/services/password-hash.ts';

test('a password is hashed with scrypt at the cost asked, the parameters and salt kept in the hash', async () => {
  const hash = await hashPassword('a long enough secret', 10);
  const [scheme, n, r, p, salt, key] = hash.split('$');
  assert.deepEqual([scheme, n, r, p], ['scrypt', '1024', '8', '1']);
  assert.equal(Buffer.from(salt!, 'base64url').length, 16);
  assert.equal(Buffer.from(key!, 'base64url').length, 32);
  assert.notEqual(await hashPassword('a long enough secret', 10), hash);
});

test('a hash verifies at its own cost, so raising the cost later keeps older passwords working', async () => {
  const older = await hashPassword('a long enough secret', 10);
  const newer = await hashPassword('a long enough secret', 11);
  assert.equal(await verifyPassword('a long enough secret', older), true);
  assert.equal(await verifyPassword('a long enough secret', newer), true);
  assert.equal(await verifyPassword('another secret', older), false);
});

test('passwords are compared after NFKC normalisation', async () => {
  const hash = await hashPassword('ﬁne long secret', 10);
  assert.equal(await verifyPassword('fine long secret', hash), true);
});

test('the unusable hash and malformed, oversized or non-power-of-two stored hashes verify no password', async () => {
  assert.equal(await verifyPassword('', unusableHash(10)), false);
  assert.equal(await verifyPassword('a long enough secret', unusableHash(10)), false);
  const [, , , , salt, key] = (await hashPassword('a long enough secret', 10)).split('$');
  for (const stored of [
    '',
    'bcrypt$1024$8$1$a$b',
    'scrypt$1024$8$1$$',
    `scrypt$${2 ** 19}$8$1$${salt}$${key}`,
    `scrypt$1024$8$0$${salt}$${key}`,
    `scrypt$1000$8$1$${salt}$${key}`,
  ]) {
    assert.equal(await verifyPassword('a long enough secret', stored), false, stored);
  }
});
