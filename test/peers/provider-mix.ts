import type { Pacing } from '../../lib/verifier/politeness';
import { startCountingSmtp, type CountingSmtp } from './counting-smtp';
import { startDnsmasq, type DnsPeer } from './dnsmasq';

/**
 * A production list over a provider mix, and the peers it needs: dnsmasq answering each domain's
 * MX (Google's, Microsoft's and Yahoo's real MX names, so lib/verifier/providers.ts names the
 * provider; a host each for the small domains) and one counting mail server listening on every MX
 * address (127.0.2.x Google, .3.x Microsoft, .4.x Yahoo, 127.1.x.y the small hosts). `ok…`
 * addresses exist, `no…` ones do not. Used by the fleet test and the egress bench.
 */
export interface MixTarget {
  name: string;
  share: number;
  domains: number;
  mx: string[];
  ips: string[];
}

export const MIX_TARGETS: MixTarget[] = [
  { name: 'google', share: 0.3, domains: 20, mx: ['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'], ips: ['127.0.2.1', '127.0.2.2'] },
  { name: 'microsoft', share: 0.15, domains: 10, mx: ['a-com.mail.protection.outlook.com'], ips: ['127.0.3.1'] },
  { name: 'yahoo', share: 0.1, domains: 5, mx: ['mta5.am0.yahoodns.net'], ips: ['127.0.4.1'] },
];

export interface ProviderMix {
  emails: string[];
  /** addresses per provider name, and per small host */
  byTarget: Map<string, number>;
  smallIps: string[];
  smallPerDomain: number;
  dnsLines: string[];
}

/** `total` addresses: 30% Google, 15% Microsoft, 10% Yahoo, the rest over one small domain per `smallEvery` addresses; shuffled. */
export function providerMix(total: number, { tag = '', smallEvery = 20, targets = MIX_TARGETS } = {}): ProviderMix {
  const dnsLines: string[] = [];
  const emails: string[] = [];
  const byTarget = new Map<string, number>();
  targets.forEach((target, t) => {
    for (const [i, name] of target.mx.entries()) dnsLines.push(`host-record=${name},${target.ips[i]}`);
    for (let d = 0; d < target.domains; d++) dnsLines.push(`mx-host=${target.name}${d}.test,${target.mx[d % target.mx.length]},10`);
    const count = Math.round(total * target.share);
    byTarget.set(target.name, count);
    for (let i = 0; i < count; i++) emails.push(`${i % 2 ? 'ok' : 'no'}${tag}${t}x${i}@${target.name}${i % target.domains}.test`);
  });
  const rest = total - emails.length;
  const smallDomains = Math.max(1, Math.round(total / smallEvery));
  const smallIps: string[] = [];
  for (let d = 0; d < smallDomains; d++) {
    const ip = `127.1.${Math.floor(d / 250)}.${(d % 250) + 1}`;
    smallIps.push(ip);
    dnsLines.push(`mx-host=s${d}.test,mx.s${d}.test,10`, `host-record=mx.s${d}.test,${ip}`);
  }
  for (let i = 0; i < rest; i++) emails.push(`${i % 2 ? 'ok' : 'no'}${tag}s${i}@s${i % smallDomains}.test`);
  // a list is in no order: spread every provider over every chunk
  for (let i = emails.length - 1; i > 0; i--) {
    const j = (i * 2654435761) % (i + 1);
    [emails[i], emails[j]] = [emails[j]!, emails[i]!];
  }
  return { emails, byTarget, smallIps, smallPerDomain: Math.ceil(rest / smallDomains), dnsLines };
}

/** EV_SMTP_PACING for the mix: each provider's pacing, `default` for the small hosts. */
export const pacingSpec = (pacing: Record<string, Pacing>) =>
  Object.entries(pacing)
    .map(([name, p]) => `${name}=${p.concurrency}/${p.perMinute}`)
    .join(',');

export async function startMixPeers(
  mix: ProviderMix,
  replyDelayMs: number,
  targets = MIX_TARGETS,
): Promise<{ dns: DnsPeer; smtp: CountingSmtp; stop(): Promise<void> }> {
  const dns = await startDnsmasq(mix.dnsLines, ['test', 'google.com', 'outlook.com', 'yahoodns.net']);
  const smtp = await startCountingSmtp({ hosts: [...targets.flatMap((t) => t.ips), ...mix.smallIps], replyDelayMs });
  return {
    dns,
    smtp,
    stop: async () => {
      await smtp.stop();
      await dns.stop();
    },
  };
}
