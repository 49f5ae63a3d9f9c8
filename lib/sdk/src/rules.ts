import type { RequestOptions, Transport } from './client.ts';
import type { QuotaState, Rule, RuleCreated, RuleImport, RuleInput, UsageReport } from './rules-types.ts';

const IMPORT_BATCH = 1000;

/** Allow and block rules: GET/POST/DELETE /v1/rules. */
export class Rules {
  constructor(private readonly t: Transport) {}

  async list(options?: RequestOptions): Promise<Rule[]> {
    return (await this.t.json<{ data: Rule[] }>('GET', '/v1/rules', options)).data;
  }

  /** A rule the account already has is answered as it is. */
  create(input: RuleInput, options?: RequestOptions): Promise<RuleCreated> {
    return this.t.json('POST', '/v1/rules', { ...options, body: input });
  }

  /** Adds many rules, a thousand per request; returns how many were new. */
  async import(rules: RuleInput[], options?: RequestOptions): Promise<{ created: number; rules: Rule[] }> {
    let created = 0;
    const added: Rule[] = [];
    for (let start = 0; start < rules.length; start += IMPORT_BATCH) {
      const answer = await this.t.json<RuleImport>('POST', '/v1/rules/import', { ...options, body: { rules: rules.slice(start, start + IMPORT_BATCH) } });
      created += answer.created;
      added.push(...answer.data);
    }
    return { created, rules: added };
  }

  delete(id: string, options?: RequestOptions): Promise<{ success: true; id: string; deleted: true }> {
    return this.t.json('DELETE', `/v1/rules/${encodeURIComponent(id)}`, options);
  }
}

export interface UsageRange {
  /** first UTC day, YYYY-MM-DD (default 29 days before `to`) */
  from?: string;
  /** last UTC day, inclusive (default today) */
  to?: string;
  /** `member`: also split the charged checks by person (`members`; the CSV: a row per person and day) */
  by?: 'member';
}

export function usage(t: Transport, range: UsageRange & RequestOptions = {}): Promise<UsageReport> {
  const { from, to, by, ...rest } = range;
  return t.json('GET', '/v1/usage', { ...rest, query: { from, to, by } });
}

export async function usageCsv(t: Transport, range: UsageRange & RequestOptions = {}): Promise<string> {
  const { from, to, by, ...rest } = range;
  return new Response(await t.stream('/v1/usage', { ...rest, query: { from, to, by, format: 'csv' } })).text();
}

export function quota(t: Transport, options?: RequestOptions): Promise<QuotaState> {
  return t.json('GET', '/v1/account/quota', options);
}

export function setQuotaWarning(t: Transport, warningBelow: number | null, options?: RequestOptions): Promise<QuotaState> {
  return t.json('POST', '/v1/account/quota', { ...options, body: { warning_below: warningBelow } });
}

const ACTIONS = new Set(['allow', 'block']);
const MATCHES = new Set(['email', 'domain', 'mx', 'tld']);

/**
 * Rules from CSV rows (the dashboard's import and the CLI's): `action,match,value` rows (a header
 * naming those columns is skipped), or one value a row taken with `defaults`. Rows that are neither
 * come back in `skipped` by their 1-based row number (rows as parsed: a parser may drop blank lines).
 */
export function rulesFromRows(rows: string[][], defaults: Omit<RuleInput, 'value'>): { rules: RuleInput[]; skipped: number[] } {
  const rules: RuleInput[] = [];
  const skipped: number[] = [];
  rows.forEach((row, index) => {
    const cells = row.map((cell) => cell.trim());
    if (cells.every((cell) => cell === '')) return;
    const [first = '', second = '', third = ''] = cells.map((cell) => cell.toLowerCase());
    if (index === 0 && first === 'action' && second === 'match') return;
    if (ACTIONS.has(first) && MATCHES.has(second) && cells[2])
      rules.push({ action: first as RuleInput['action'], match: second as RuleInput['match'], value: cells[2] });
    else if (cells.filter(Boolean).length === 1 && !third) rules.push({ ...defaults, value: cells.find(Boolean)! });
    else skipped.push(index + 1);
  });
  return { rules, skipped };
}
