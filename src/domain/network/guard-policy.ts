import ipaddr from 'ipaddr.js';
import { inCidr, mappedIPv4 } from './ip-ranges.ts';

/**
 * What the operator allows beyond the guard's defaults.
 * Built from PAGEWATCH_ALLOW_PORTS and PAGEWATCH_ALLOW_PRIVATE_NETWORKS by the
 * configuration module (see guardPolicy); the guard itself never reads the environment.
 */
export interface GuardPolicy {
  /** ports allowed on public addresses, e.g. [80, 443] */
  allowPorts: number[];
  /** CIDRs the operator trusts despite the address rules, on any port, e.g. ['127.0.0.0/8'] */
  trustedCidrs: string[];
}

export const DEFAULT_ALLOW_PORTS: readonly number[] = [80, 443];

export function isValidPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/**
 * A validated policy; throws on a malformed CIDR or port so that a bad
 * configuration stops the process at start instead of silently trusting nothing.
 */
export function guardPolicy(input: { allowPorts?: number[]; trustedCidrs?: string[] } = {}): GuardPolicy {
  const allowPorts = input.allowPorts ?? [...DEFAULT_ALLOW_PORTS];
  const trustedCidrs = input.trustedCidrs ?? [];
  for (const port of allowPorts) {
    if (!isValidPort(port)) throw new Error(`invalid port in allow list: ${port}`);
  }
  for (const cidr of trustedCidrs) {
    if (!ipaddr.isValidCIDR(cidr)) throw new Error(`invalid CIDR in trusted networks: ${cidr}`);
  }
  return { allowPorts: [...allowPorts], trustedCidrs: [...trustedCidrs] };
}

/**
 * Whether the operator trusts this address: exactly the ranges named, and an
 * IPv4-mapped address of a trusted IPv4 host (the same host). A NAT64, 6to4
 * or compat address embedding a trusted IPv4 address is not trusted: on a real
 * network it leads elsewhere. A malformed CIDR trusts nothing: the guard fails closed.
 */
export function isTrusted(addr: ipaddr.IPv4 | ipaddr.IPv6, policy: GuardPolicy): boolean {
  const embedded = mappedIPv4(addr);
  return policy.trustedCidrs.some((text) => {
    if (!ipaddr.isValidCIDR(text)) return false;
    const cidr = ipaddr.parseCIDR(text);
    return inCidr(addr, cidr) || (embedded !== null && inCidr(embedded, cidr));
  });
}
