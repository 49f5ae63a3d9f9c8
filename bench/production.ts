/**
 * Production-path benchmark: 2,000 addresses over 40 domains through real dnsmasq and Postfix,
 * with 200 ms added to every SMTP reply by a proxy (a far-away MX). Compares the elapsed time
 * with the ideal the concurrency limits allow. Run: npx tsx bench/production.ts
 * (BENCH_DEBUG=1 adds open-connection samples and per-command server latencies).
 */
import dnsModule from 'node:dns';
import net from 'node:net';
import { validate } from 'deep-email-validator';
import { createDnsResolver } from '../lib/verifier/dns';
import { createVerifier } from '../lib/verifier/verify';
import { freePort } from '../test/peers/common';
import { startDnsmasq } from '../test/peers/dnsmasq';
import { startPostfix } from '../test/peers/postfix';

export interface BenchReport {
  addresses: number;
  domains: number;
  perDomainLimit: number;
  globalLimit: number;
  replyDelayMs: number;
  perAddressMs: number;
  idealMs: number;
  elapsedMs: number;
  ratio: number;
  statuses: Record<string, number>;
}

export interface ProductionPeers {
  addresses: string[];
  domains: string[];
  dns: { server: string };
  /** the delay proxy in front of Postfix: the port every verifier probes */
  smtpPort: number;
  proxy: Awaited<ReturnType<typeof startDelayProxy>>;
  stop(): Promise<void>;
}

/**
 * The bench's world: 2,000 addresses over 40 domains (one big domain of 200, so it must not crowd
 * out the others; every other address exists), dnsmasq for their MX records, Postfix for their
 * mailboxes and a proxy adding `replyDelayMs` to every server reply.
 */
export async function startProductionPeers(replyDelayMs = 200, proxyPort?: number): Promise<ProductionPeers> {
  const domains = Array.from({ length: 40 }, (_, i) => `d${i}.test`);
  const addresses: string[] = [];
  for (let i = 0; i < 200; i++) addresses.push(`user${i}@d0.test`);
  for (let i = 0; i < 1800; i++) addresses.push(`user${i}@d${1 + (i % 39)}.test`);
  const existing = addresses.filter((_, i) => i % 2 === 0);
  const dns = await startDnsmasq(domains.flatMap((d) => [`mx-host=${d},mx.${d},10`, `host-record=mx.${d},127.0.0.1`]));
  const postfix = await startPostfix({ mailboxes: existing });
  const proxy = await startDelayProxy(postfix.port, replyDelayMs, proxyPort);
  return {
    addresses,
    domains,
    dns,
    smtpPort: proxy.port,
    proxy,
    async stop() {
      proxy.server.close();
      await postfix.stop();
      await dns.stop();
    },
  };
}

export async function runProductionBench(options = { perDomainLimit: 10, globalLimit: 100, replyDelayMs: 200 }): Promise<BenchReport> {
  const { perDomainLimit, globalLimit, replyDelayMs } = options;
  const peers = await startProductionPeers(replyDelayMs);
  const { addresses, domains, dns, proxy } = peers;
  const verifierFor = () =>
    createVerifier({
      dns: createDnsResolver({ servers: [dns.server] }),
      smtp: { port: proxy.port, heloName: 'bench.test', mailFrom: 'check@bench.test', connectTimeoutMs: 5000, commandTimeoutMs: 10_000 },
      allowPrivateNetworks: true,
      perDomainConcurrency: perDomainLimit,
      globalConcurrency: globalLimit,
    });
  try {
    // per-address time: one address alone, catch-all answer already known (the steady state)
    const warm = verifierFor();
    await warm.verify('user0@d0.test');
    const t0 = performance.now();
    for (let i = 2; i < 8; i += 2) await warm.verify(`user${i}@d0.test`);
    const perAddressMs = (performance.now() - t0) / 3;

    const perDomainCount = new Map<string, number>();
    for (const a of addresses) perDomainCount.set(a.split('@')[1], (perDomainCount.get(a.split('@')[1]) ?? 0) + 1);
    const domainBound = Math.max(...[...perDomainCount.values()].map((n) => Math.ceil(n / perDomainLimit)));
    const globalBound = Math.ceil(addresses.length / globalLimit);
    const idealMs = Math.max(domainBound, globalBound) * perAddressMs;

    const verifier = verifierFor();
    const start = performance.now();
    const sampler = process.env.BENCH_DEBUG
      ? setInterval(() => console.error('t', Math.round(performance.now() - start), 'open', proxy.open()), 1000)
      : undefined;
    const outcomes = await Promise.all(addresses.map((a) => verifier.verify(a)));
    const elapsedMs = performance.now() - start;
    clearInterval(sampler);
    const statuses: Record<string, number> = {};
    for (const { verdict } of outcomes) statuses[verdict.status] = (statuses[verdict.status] ?? 0) + 1;
    if (process.env.BENCH_DEBUG) {
      for (const { verdict } of outcomes) if (verdict.status === 'unknown') console.error(verdict.email, verdict.reason, verdict.evidence);
      const d = proxy.durations;
      console.error('warm', d.slice(0, 4).map(Math.round));
      const loaded = d.slice(4);
      loaded.sort((a, b) => a - b);
      console.error(
        'loaded p25/50/75/90/99',
        [0.25, 0.5, 0.75, 0.9, 0.99].map((q) => Math.round(loaded[Math.floor(q * loaded.length)])),
      );
      for (const [verb, t] of Object.entries(proxy.serverTimes)) {
        t.sort((a, b) => a - b);
        console.error(
          verb,
          t.length,
          [0.5, 0.9, 0.99].map((q) => Math.round(t[Math.floor(q * t.length)])),
        );
      }
      console.error('connections', d.length, 'mean ms', d.reduce((a, b) => a + b, 0) / d.length, 'max', Math.max(...d));
    }
    return {
      addresses: addresses.length,
      domains: domains.length,
      perDomainLimit,
      globalLimit,
      replyDelayMs,
      perAddressMs: Math.round(perAddressMs),
      idealMs: Math.round(idealMs),
      elapsedMs: Math.round(elapsedMs),
      ratio: Number((elapsedMs / idealMs).toFixed(2)),
      statuses,
    };
  } finally {
    await peers.stop();
  }
}

export interface DeepReport {
  sample: number;
  elapsedMs: number;
  perAddressMs: number;
  projectedMs: number;
  right: number;
}

/**
 * deep-email-validator over a sample of the same list, the way its README shows: one awaited
 * `validate({...})` per address. It always dials port 25 of the MX name with the system resolver
 * and reads MX records through Node's default resolver, so here its MX records (in their own
 * dnsmasq) name 127.0.0.1 and the same delay proxy listens on 127.0.0.1:25. The time for the whole
 * list is projected from the sample (it would take about half an hour).
 */
export async function runDeepEmailValidatorComparison(sampleSize = 40, replyDelayMs = 200): Promise<DeepReport> {
  let peers: ProductionPeers;
  try {
    peers = await startProductionPeers(replyDelayMs, 25);
  } catch (error) {
    throw new Error(`deep-email-validator needs 127.0.0.1:25 free (stop the system MTA): ${(error as Error).message}`);
  }
  const dns = await startDnsmasq(peers.domains.map((d) => `mx-host=${d},127.0.0.1,10`));
  const servers = dnsModule.getServers();
  dnsModule.setServers([dns.server]);
  try {
    const step = Math.floor(peers.addresses.length / sampleSize);
    const sample = peers.addresses.filter((_, i) => i % step === 0).slice(0, sampleSize);
    let right = 0;
    const start = performance.now();
    for (const email of sample) {
      const result = await validate({
        email,
        sender: 'check@bench.test',
        validateRegex: true,
        validateMx: true,
        validateTypo: true,
        validateDisposable: true,
        validateSMTP: true,
        additionalTopLevelDomains: ['test'],
      });
      // every other address of the list exists (startProductionPeers)
      if (result.valid === (peers.addresses.indexOf(email) % 2 === 0)) right++;
    }
    const elapsedMs = performance.now() - start;
    const perAddressMs = elapsedMs / sample.length;
    return {
      sample: sample.length,
      elapsedMs: Math.round(elapsedMs),
      perAddressMs: Math.round(perAddressMs),
      projectedMs: Math.round(perAddressMs * peers.addresses.length),
      right,
    };
  } finally {
    dnsModule.setServers(servers);
    await dns.stop();
    await peers.stop();
  }
}

/** A TCP proxy in front of Postfix that holds each chunk the server sends for `delayMs`. */
async function startDelayProxy(targetPort: number, delayMs: number, listenPort?: number) {
  const durations: number[] = [];
  let open = 0;
  const serverTimes: Record<string, number[]> = {};
  const server = net.createServer((client) => {
    const opened = performance.now();
    open++;
    client.on('close', () => {
      open--;
      durations.push(performance.now() - opened);
    });
    const upstream = net.connect(targetPort, '127.0.0.1');
    let sent = opened;
    let verb = 'BANNER';
    client.on('data', (chunk) => {
      sent = performance.now();
      verb = chunk.toString().slice(0, 4);
      upstream.write(chunk);
    });
    upstream.on('data', (_chunk) => {
      const key = verb;
      (serverTimes[key] ??= []).push(performance.now() - sent);
    });
    upstream.on('data', (chunk) => setTimeout(() => client.writable && client.write(chunk), delayMs));
    upstream.on('close', () => setTimeout(() => client.end(), delayMs));
    client.on('close', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  const port = listenPort ?? (await freePort());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { server, port, durations, open: () => open, serverTimes };
}

if (process.argv[1]?.endsWith('production.ts')) {
  const work = process.argv.includes('--deep') ? runDeepEmailValidatorComparison() : runProductionBench();
  work.then(
    (report) => console.log(JSON.stringify(report, null, 2)),
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
