import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardPolicy, isAddressAllowed } from '../../../src/fetch/ssrf/guard.ts';

// isAddressAllowed: the ranges of DESIGN §5, embedded IPv4 forms, ports and trust.

const open = guardPolicy();

function reason(address: string, port = 443, policy = open): string {
  const verdict = isAddressAllowed(address, port, policy);
  assert.equal(verdict.ok, false, `${address} should be refused`);
  return verdict.ok ? '' : verdict.reason;
}

test('public unicast addresses are allowed on 80 and 443', () => {
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001::200e']) {
    assert.deepEqual(isAddressAllowed(address, 443, open), { ok: true }, address);
    assert.deepEqual(isAddressAllowed(address, 80, open), { ok: true }, address);
  }
});

test('every forbidden IPv4 range is refused with its name', () => {
  const cases: Array<[string, RegExp]> = [
    ['0.0.0.0', /unspecified/],
    ['10.1.2.3', /private/],
    ['100.64.0.1', /CGNAT/],
    ['127.0.0.1', /loopback/],
    ['169.254.1.1', /link-local/],
    ['172.20.0.1', /private/],
    ['192.0.0.8', /IETF protocol/],
    ['192.0.2.1', /TEST-NET-1/],
    ['192.88.99.1', /6to4 relay/],
    ['192.168.1.1', /private/],
    ['198.19.0.1', /benchmarking/],
    ['198.51.100.7', /TEST-NET-2/],
    ['203.0.113.9', /TEST-NET-3/],
    ['224.0.0.251', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['250.1.1.1', /reserved/],
  ];
  for (const [address, pattern] of cases) assert.match(reason(address), pattern, address);
});

test('every forbidden IPv6 range is refused with its name', () => {
  const cases: Array<[string, RegExp]> = [
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['100::1', /discard/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['2001:2::1', /benchmarking/],
    ['2001:10::1', /ORCHID/],
    ['2001:20::1', /ORCHIDv2/],
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['fd12::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['4000::1', /outside 2000::\/3/],
  ];
  for (const [address, pattern] of cases) assert.match(reason(address), pattern, address);
});

test('IPv4-mapped addresses are refused and name the embedded address', () => {
  assert.match(reason('::ffff:10.0.0.1'), /IPv4-mapped .* embedding 10\.0\.0\.1 \(private/);
  assert.match(reason('::ffff:8.8.8.8'), /IPv4-mapped .* embedding 8\.8\.8\.8 \(public\)/);
});

test('NAT64 addresses (64:ff9b::/96 and 64:ff9b:1::/48) are refused and name the embedded address', () => {
  assert.match(reason('64:ff9b::7f00:1'), /NAT64 .* embedding 127\.0\.0\.1 \(loopback\)/);
  assert.match(reason('64:ff9b:1::a00:1'), /local-use NAT64 .* embedding 10\.0\.0\.1/);
});

test('IPv4-compatible, IPv4-translated and 6to4 addresses are refused', () => {
  assert.match(reason('::7f00:1'), /IPv4-compatible .* embedding 127\.0\.0\.1/);
  assert.match(reason('::ffff:0:a00:1'), /IPv4-translated .* embedding 10\.0\.0\.1/);
  assert.match(reason('2002:c0a8:101::1'), /6to4 .* embedding 192\.168\.1\.1/);
});

test('cloud metadata addresses are refused even inside a trusted network', () => {
  const trusting = guardPolicy({ trustedCidrs: ['169.254.0.0/16', '100.64.0.0/10', 'fd00::/8', '168.63.0.0/16'] });
  for (const address of [
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    '168.63.129.16',
    '::ffff:169.254.169.254',
  ]) {
    assert.match(reason(address, 80, trusting), /metadata/, address);
  }
});

test('a trusted network is allowed on any port', () => {
  const trusting = guardPolicy({ trustedCidrs: ['127.0.0.0/8', '10.0.0.0/8'] });
  assert.deepEqual(isAddressAllowed('127.0.0.1', 5432, trusting), { ok: true });
  assert.deepEqual(isAddressAllowed('10.9.8.7', 8080, trusting), { ok: true });
});

test('trust extends to the IPv4-mapped form of a trusted address (the same host), and to nothing else', () => {
  const trusting = guardPolicy({ trustedCidrs: ['127.0.0.2/32'] });
  assert.deepEqual(isAddressAllowed('127.0.0.2', 3000, trusting), { ok: true });
  assert.deepEqual(isAddressAllowed('::ffff:127.0.0.2', 3000, trusting), { ok: true });
  // NAT64, 6to4 and compat forms reach a translator or relay on a real network, not this host.
  for (const address of ['64:ff9b::7f00:2', '2002:7f00:2::', '::7f00:2', '127.0.0.3']) {
    assert.equal(isAddressAllowed(address, 3000, trusting).ok, false, address);
  }
});

test('a public address on a port outside the allow list is refused', () => {
  assert.match(reason('93.184.216.34', 8080), /port 8080 is not allowed/);
  assert.deepEqual(isAddressAllowed('93.184.216.34', 8080, guardPolicy({ allowPorts: [8080] })), { ok: true });
});

test('invalid ports are refused', () => {
  assert.match(reason('93.184.216.34', 0), /invalid port/);
  assert.match(reason('93.184.216.34', 65536), /invalid port/);
  assert.match(reason('93.184.216.34', 80.5), /invalid port/);
});

test('only plain IP literals are judged; other spellings are refused', () => {
  for (const address of ['0177.0.0.1', '0x7f000001', '2130706433', 'localhost', 'fe80::1%eth0', '']) {
    assert.match(reason(address), /not a plain IP address/, address);
  }
});
