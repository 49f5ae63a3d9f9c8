'use client';

import Papa from 'papaparse';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useCan } from '@/lib/client/team-hooks';
import { useAddRule, useDeleteRule, useImportRules, useRules } from '@/lib/client/rules-hooks';
import { rulesFromRows } from '@/lib/sdk/src/rules';
import type { RuleAction, RuleMatch } from '@/lib/sdk/src/rules-types';
import { Button, Card, DataTable, ErrorNote, formatDate, inputClass, labelClass, selectClass } from '../ui';

const MATCH_LABELS: Record<RuleMatch, string> = { email: 'Address', domain: 'Domain', mx: 'MX host', tld: 'TLD' };

/** The account's allow and block rules: add one, import a CSV, delete. */
export function Rules() {
  const rules = useRules();
  const add = useAddRule();
  const remove = useDeleteRule();
  const [action, setAction] = useState<RuleAction>('block');
  const [match, setMatch] = useState<RuleMatch>('domain');
  const [value, setValue] = useState('');
  // members read the rules; admins change them (docs/teams.md)
  const canEdit = useCan('admin');

  function onAdd(event: FormEvent) {
    event.preventDefault();
    add.mutate({ action, match, value }, { onSuccess: () => setValue('') });
  }

  return (
    <Card
      title="Allow and block rules"
      description="Decided before any probe and never charged: the most specific match wins (address, domain, MX host, TLD); at one level a block beats an allow."
    >
      {canEdit && (
        <>
          <form onSubmit={onAdd} className="flex flex-wrap items-end gap-2">
            <div>
              <label htmlFor="rule-action" className={labelClass}>
                Action
              </label>
              <select id="rule-action" value={action} onChange={(e) => setAction(e.target.value as RuleAction)} className={selectClass}>
                <option value="block">Block</option>
                <option value="allow">Allow</option>
              </select>
            </div>
            <div>
              <label htmlFor="rule-match" className={labelClass}>
                Match
              </label>
              <select id="rule-match" value={match} onChange={(e) => setMatch(e.target.value as RuleMatch)} className={selectClass}>
                {Object.entries(MATCH_LABELS).map(([key, label]) => (
                  <option key={key} value={key}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <div className="min-w-56 flex-1">
              <label htmlFor="rule-value" className={labelClass}>
                Value
              </label>
              <input
                id="rule-value"
                required
                value={value}
                onChange={(e) => setValue(e.target.value)}
                placeholder="competitor.example"
                className={inputClass}
              />
            </div>
            <Button type="submit" disabled={add.isPending}>
              Add rule
            </Button>
          </form>
          <CsvImport action={action} match={match} />
        </>
      )}
      <div className="mt-4 space-y-3">
        <ErrorNote error={add.error ?? remove.error ?? rules.error} />
        <DataTable
          caption="Rules"
          testId="rules"
          dimmed={rules.isFetching}
          columns={[{ label: 'Action' }, { label: 'Match' }, { label: 'Value' }, { label: 'Added' }, { label: '', className: 'w-0' }]}
          empty={rules.data?.length === 0 ? 'No rules yet.' : null}
        >
          {rules.data?.map((rule) => (
            <tr key={rule.id} data-testid="rule">
              <td className="px-3 py-2 font-medium capitalize">{rule.action}</td>
              <td className="px-3 py-2">{MATCH_LABELS[rule.match]}</td>
              <td className="px-3 py-2 font-mono">{rule.value}</td>
              <td className="px-3 py-2 text-slate-500">{formatDate(rule.created_at)}</td>
              <td className="px-3 py-2">
                {canEdit && (
                  <Button variant="danger" onClick={() => remove.mutate(rule.id)} aria-label={`Delete ${rule.action} rule for ${rule.value}`}>
                    Delete
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
    </Card>
  );
}

/** A CSV of `action,match,value` rows, or one value a row taken with the action and match chosen above. */
function CsvImport({ action, match }: { action: RuleAction; match: RuleMatch }) {
  const importRules = useImportRules();
  const [note, setNote] = useState<string | null>(null);

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    const parsed = Papa.parse<string[]>((await file.text()).replace(/^\uFEFF/, ''), { skipEmptyLines: true });
    const { rules, skipped } = rulesFromRows(parsed.data, { action, match });
    const skippedNote = skipped.length
      ? ` Skipped row${skipped.length === 1 ? '' : 's'} ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? '…' : ''}.`
      : '';
    if (rules.length === 0) return setNote(`No rules in ${file.name}.${skippedNote}`);
    importRules.mutate(rules, { onSuccess: ({ created, sent }) => setNote(`Imported ${file.name}: ${created} new of ${sent}.${skippedNote}`) });
  }

  return (
    <div className="mt-3 flex flex-wrap items-center gap-3 text-sm text-slate-600">
      <label htmlFor="rules-csv" className="font-medium text-slate-700">
        Import CSV
      </label>
      <input id="rules-csv" type="file" accept=".csv,.txt,text/csv,text/plain" onChange={onFile} disabled={importRules.isPending} />
      {note && (
        <span role="status" data-testid="import-note">
          {note}
        </span>
      )}
      <ErrorNote error={importRules.error} />
    </div>
  );
}
