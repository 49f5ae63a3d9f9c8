import dgram from 'node:dgram';

/**
 * A small authoritative DNS server on loopback (UDP) for tests that need to change a zone while they
 * run, or where dnsmasq (test/peers/dnsmasq.ts) is not installed: A and MX records from `zone`, read
 * at each query; a name not in it is NXDOMAIN, a name in it without the asked type is NODATA.
 */
export interface TinyZone {
  /** domain → MX hosts */
  mx: Record<string, { exchange: string; priority: number }[]>;
  /** host → IPv4 address */
  a: Record<string, string>;
}

export interface TinyDns {
  /** "127.0.0.1:port", as EV_DNS_SERVERS takes it */
  server: string;
  zone: TinyZone;
  stop(): Promise<void>;
}

const TYPE = { A: 1, MX: 15 } as const;

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...parts.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])), Buffer.from([0])]);
}

function answer(query: Buffer, zone: TinyZone): Buffer | null {
  if (query.length < 12) return null;
  let at = 12;
  const labels: string[] = [];
  while (at < query.length && query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  const questionEnd = at + 5;
  if (questionEnd > query.length) return null;
  const qtype = query.readUInt16BE(at + 1);
  const name = labels.join('.').toLowerCase();
  const records: Buffer[] = [];
  const known = name in zone.mx || name in zone.a;
  const record = (type: number, rdata: Buffer) => {
    const head = Buffer.alloc(12);
    head.writeUInt16BE(0xc00c, 0); // the question's name
    head.writeUInt16BE(type, 2);
    head.writeUInt16BE(1, 4); // IN
    head.writeUInt32BE(60, 6);
    head.writeUInt16BE(rdata.length, 10);
    records.push(Buffer.concat([head, rdata]));
  };
  if (qtype === TYPE.MX) {
    for (const mx of zone.mx[name] ?? []) {
      const preference = Buffer.alloc(2);
      preference.writeUInt16BE(mx.priority, 0);
      record(TYPE.MX, Buffer.concat([preference, encodeName(mx.exchange)]));
    }
  } else if (qtype === TYPE.A && zone.a[name]) {
    record(TYPE.A, Buffer.from(zone.a[name]!.split('.').map(Number)));
  }
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const rd = query[2]! & 0x01;
  header[2] = 0x84 | rd; // QR, AA, RD as asked
  header[3] = 0x80 | (known ? 0 : 3); // RA; NXDOMAIN for a name not in the zone
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

export async function startTinyDns(zone: TinyZone): Promise<TinyDns> {
  const socket = dgram.createSocket('udp4');
  const peer: TinyDns = { server: '', zone, stop: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
  socket.on('message', (message, remote) => {
    const reply = answer(message, peer.zone);
    if (reply) socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  peer.server = `127.0.0.1:${socket.address().port}`;
  return peer;
}
