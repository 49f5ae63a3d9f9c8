import type { Pacing } from './politeness';

/**
 * Default pacing per mailbox provider (ids from providers.ts), per sending IP. The big providers
 * throttle by connections per minute as well as by open connections: Yahoo answers "421 4.7.0
 * [TSS04] Messages from x.x.x.x temporarily deferred due to unexpected volume" early, Microsoft
 * "451 4.7.500 Server busy", Gmail "421 4.7.28 ... unusual rate of unsolicited mail". These
 * figures stay well under what they accept from an unknown IP; security gateways sit in front of
 * one company's server each and get less. `EV_SMTP_PACING` overrides any of them.
 */
export const DEFAULT_PROFILES: Record<string, Pacing> = {
  google: { concurrency: 5, perMinute: 60 },
  microsoft: { concurrency: 5, perMinute: 60 },
  yahoo: { concurrency: 2, perMinute: 20 },
  apple: { concurrency: 2, perMinute: 30 },
  zoho: { concurrency: 2, perMinute: 30 },
  yandex: { concurrency: 2, perMinute: 30 },
  mailru: { concurrency: 2, perMinute: 30 },
  gmx: { concurrency: 2, perMinute: 30 },
  proton: { concurrency: 2, perMinute: 20 },
  fastmail: { concurrency: 2, perMinute: 30 },
  proofpoint: { concurrency: 2, perMinute: 30 },
  mimecast: { concurrency: 2, perMinute: 30 },
  barracuda: { concurrency: 2, perMinute: 30 },
  cisco: { concurrency: 2, perMinute: 30 },
  trendmicro: { concurrency: 2, perMinute: 30 },
};

/** Pace for MX hosts no profile names, unless `default=` says otherwise. */
export const DEFAULT_PER_MINUTE = 60;

/**
 * Parses `EV_SMTP_PACING`: comma-separated `target=concurrency/perMinute`, where target is a
 * provider id (`google`), `mx:<host>` for one MX host, or `default` for hosts nothing else names;
 * perMinute 0 means unpaced. Example: `google=3/30,mx:mx.example.com=1/10,default=2/30`.
 * Throws a message fit for the configuration error.
 */
export function parsePacingSpec(spec: string): Record<string, Pacing> {
  const profiles: Record<string, Pacing> = {};
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z0-9][a-z0-9.:-]*)=(\d+)\/(\d+)$/i.exec(part);
    if (!match) throw new Error(`"${part}" is not target=concurrency/perMinute (e.g. google=3/30)`);
    const [, target, concurrency, perMinute] = match;
    if (Number(concurrency) < 1) throw new Error(`"${part}": concurrency must be at least 1`);
    profiles[target!.toLowerCase()] = { concurrency: Number(concurrency), perMinute: Number(perMinute) };
  }
  return profiles;
}

/**
 * The pacing of a target key (`provider:<id>` or `mx:<host>`, politeness.ts): an override, else
 * the provider's default profile, else the default for unnamed hosts.
 */
export function pacingResolver(overrides: Record<string, Pacing>, fallback: Pacing): (key: string) => Pacing {
  const unnamed = overrides.default ?? fallback;
  return (key) => {
    if (key.startsWith('provider:')) {
      const id = key.slice('provider:'.length);
      return overrides[id] ?? DEFAULT_PROFILES[id] ?? unnamed;
    }
    return overrides[key] ?? unnamed;
  };
}
