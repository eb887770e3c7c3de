import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { isPublicAddress } from '../../lib/core/addresses.js';

/**
 * A host name (not `localhost`) that this machine resolves to a non-public address: a name of
 * /etc/hosts, as every Linux machine has for itself (its host name, `ip6-localhost`, …). The
 * tests of what a registration refuses use it as an attacker would use a DNS name of theirs
 * that points inside.
 */
export async function nonPublicHostName(): Promise<{ name: string; address: string }> {
  const names = readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .flatMap((line) => line.replace(/#.*/, '').trim().split(/\s+/).slice(1))
    .filter((name) => name && !/^localhost$|\.localhost$/i.test(name) && !/^[\d.:]+$/.test(name));
  for (const name of names) {
    const addresses = await lookup(name, { all: true }).catch(() => []);
    const inside = addresses.find((entry) => !isPublicAddress(entry.address));
    if (inside) return { name: name.toLowerCase(), address: inside.address };
  }
  throw new Error(`No name in /etc/hosts resolves to a non-public address (looked at: ${names.join(', ') || 'none'}); these tests need one`);
}
