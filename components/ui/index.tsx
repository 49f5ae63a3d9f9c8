import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { ConnectionError, EmailVerifierError } from '@/lib/sdk/src/errors';

export function cx(...classes: (string | false | null | undefined)[]): string {
  return classes.filter(Boolean).join(' ');
}

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

const variants: Record<Variant, string> = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-500 shadow-sm disabled:bg-indigo-300',
  secondary: 'bg-white text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:text-slate-400',
  danger: 'bg-white text-red-700 ring-1 ring-inset ring-red-200 hover:bg-red-50 disabled:text-red-300',
  ghost: 'text-slate-600 hover:bg-slate-100 hover:text-slate-900',
};

export function Button({ variant = 'primary', className, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        'inline-flex items-center justify-center gap-2 rounded-lg px-3.5 py-2 text-sm font-semibold transition-colors disabled:cursor-not-allowed',
        'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600',
        variants[variant],
        className,
      )}
    />
  );
}

export const linkButton =
  'inline-flex items-center justify-center gap-2 rounded-lg px-3.5 py-2 text-sm font-semibold bg-white text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';

export const primaryLinkButton =
  'inline-flex items-center justify-center gap-2 rounded-lg px-3.5 py-2 text-sm font-semibold bg-indigo-600 text-white shadow-sm hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600';

const fieldClass =
  'rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600';

/** A form field's label, above its input. */
export const labelClass = 'mb-1.5 block text-sm font-medium text-slate-700';
export const inputClass = `block w-full ${fieldClass}`;
export const selectClass = `block w-auto ${fieldClass} pr-8`;

export function Card({
  title,
  description,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={cx('rounded-2xl bg-white shadow-sm ring-1 ring-slate-200', className)}>
      {(title || actions) && (
        <div className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-5 py-4">
          <div>
            {title && <h2 className="text-base font-semibold text-slate-900">{title}</h2>}
            {description && <p className="mt-0.5 text-sm text-slate-500">{description}</p>}
          </div>
          {actions}
        </div>
      )}
      <div className="p-5">{children}</div>
    </section>
  );
}

export function PageTitle({ title, subtitle, actions }: { title: string; subtitle?: string; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
        {subtitle && <p className="mt-1 text-sm text-slate-500">{subtitle}</p>}
      </div>
      {actions}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  // the header says it once for every panel, with the way back (components/layout/OrganisationSwitcher.tsx)
  if (!error || (error instanceof EmailVerifierError && error.code === 'not_a_member')) return null;
  // the SDK names the host and the browser's reason; the user needs to know to check the connection
  const message =
    error instanceof ConnectionError
      ? 'Could not reach the server. Check your connection.'
      : error instanceof Error
        ? (roleMessage(error) ?? error.message)
        : String(error);
  return (
    <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
      {message}
    </p>
  );
}

/** A 403 of the role check (lib/api/key-access.ts) in words: what the role may not do, not the route. */
function roleMessage(error: Error): string | null {
  if (!(error instanceof EmailVerifierError) || error.code !== 'insufficient_role') return null;
  const needed = error.body?.role;
  return `Your role in this organisation does not allow this${needed ? `: it needs the ${needed} role` : ''}. Ask an owner or admin.`;
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={clamped}
      className="h-2 w-full overflow-hidden rounded-full bg-slate-100"
    >
      <div className="h-full rounded-full bg-indigo-500 transition-[width] duration-500" style={{ width: `${clamped}%` }} />
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="rounded-xl border border-dashed border-slate-200 px-4 py-8 text-center text-sm text-slate-500">{children}</p>;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const number = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');

/** The bordered, scrollable table of the results and history pages: header, rows, an empty line. */
export function DataTable({
  caption,
  testId,
  columns,
  dimmed,
  empty,
  children,
}: {
  caption: string;
  testId: string;
  columns: { label: string; className?: string }[];
  dimmed: boolean;
  /** shown across the table when there is no row (null: nothing) */
  empty: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="overflow-x-auto rounded-xl ring-1 ring-slate-200">
      <table className="min-w-full text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" className={cx('px-3 py-2 font-semibold', column.className)}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className={cx('divide-y divide-slate-100', dimmed && 'opacity-60')}>
          {children}
          {empty && (
            <tr>
              <td colSpan={columns.length} className="px-3 py-8 text-center text-slate-500">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
