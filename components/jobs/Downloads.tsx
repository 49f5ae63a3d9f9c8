'use client';

import { useState } from 'react';
import { cx, linkButton, primaryLinkButton, selectClass } from '../ui';
import { verdicts } from '../verdict';

type Format = 'original' | 'xlsx' | 'csv';

const FORMATS: { key: Format; label: string }[] = [
  { key: 'original', label: 'As uploaded' },
  { key: 'xlsx', label: 'Excel (.xlsx)' },
  { key: 'csv', label: 'Plain CSV' },
];

/** A link cannot send X-EV-Sandbox: a sandbox job's links say `sandbox=true` (the download answers 404 across modes otherwise). */
export function downloadUrl(jobId: string, sandbox: boolean, query: Record<string, string | undefined>): string {
  const withMode = { ...query, sandbox: sandbox ? 'true' : undefined };
  const params = new URLSearchParams(Object.entries(withMode).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const search = params.toString();
  return `/v1/verify/bulk/download/${encodeURIComponent(jobId)}${search ? `?${search}` : ''}`;
}

/**
 * The job's downloads: the file format (as uploaded by default: same delimiter, BOM and line ends,
 * or .xlsx for a workbook), the one-click safe-to-send list, and one file per verdict.
 */
export function Downloads({ jobId, sandbox }: { jobId: string; sandbox: boolean }) {
  const [format, setFormat] = useState<Format>('original');
  const [withCatchAll, setWithCatchAll] = useState(false);
  const url = (filter?: string, extra: Record<string, string | undefined> = {}) =>
    downloadUrl(jobId, sandbox, { filter, format: format === 'original' ? undefined : format, ...extra });
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <label htmlFor="download-format" className="text-sm font-medium text-slate-700">
          File format
        </label>
        <select id="download-format" value={format} onChange={(e) => setFormat(e.target.value as Format)} className={cx(selectClass, 'min-w-40')}>
          {FORMATS.map((f) => (
            <option key={f.key} value={f.key}>
              {f.label}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-wrap items-center gap-3 rounded-xl bg-emerald-50 px-4 py-3 ring-1 ring-emerald-200">
        <a href={url('safe', { catch_all: withCatchAll ? 'true' : undefined })} download className={primaryLinkButton} data-testid="download-safe">
          Safe to send
        </a>
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" checked={withCatchAll} onChange={(e) => setWithCatchAll(e.target.checked)} className="h-4 w-4 rounded border-slate-300" />
          include catch-all addresses (their servers accept every address, so delivery is not certain)
        </label>
      </div>
      <div className="flex flex-wrap gap-2">
        <a href={url()} download className={linkButton} data-testid="download-all">
          All rows
        </a>
        {verdicts.map((v) => (
          <a key={v.key} href={url(v.key)} download className={linkButton}>
            {v.label} only
          </a>
        ))}
      </div>
    </div>
  );
}
