/**
 * What one process shares across Next.js's copies of a module: the instrumentation hook and the
 * route bundles each load lib/ separately, so a module-level variable would exist once per copy
 * (two databases, two workers, two metrics registries). Each shared object takes one named slot
 * here; this file is the one place that touches globalThis for it.
 */
const slots = ((globalThis as unknown as { __evSlots?: Map<string, { value?: unknown }> }).__evSlots ??= new Map());

/** The process-wide slot of this name (created empty on first use). */
export function processSlot<T>(name: string): { value?: T } {
  let slot = slots.get(name);
  if (!slot) slots.set(name, (slot = {}));
  return slot as { value?: T };
}
