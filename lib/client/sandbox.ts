import { useSyncExternalStore } from 'react';

// The sandbox switch lives outside React so the fetch wrapper reads it at call time and every
// page sees the same value; localStorage keeps it across reloads and other tabs.
const STORAGE_KEY = 'ev.sandbox';
const listeners = new Set<() => void>();

function read(): boolean {
  try {
    return typeof window !== 'undefined' && window.localStorage.getItem(STORAGE_KEY) === 'true';
  } catch {
    return false;
  }
}

let current: boolean | undefined;

export function isSandbox(): boolean {
  current ??= read();
  return current;
}

export function setSandbox(on: boolean): void {
  current = on;
  try {
    window.localStorage.setItem(STORAGE_KEY, String(on));
  } catch {
    // Private mode: the switch still works for this page view.
  }
  for (const notify of listeners) notify();
}

function subscribe(notify: () => void): () => void {
  listeners.add(notify);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY) return;
    current = event.newValue === 'true';
    notify();
  };
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(notify);
    window.removeEventListener('storage', onStorage);
  };
}

export function useSandbox(): boolean {
  return useSyncExternalStore(subscribe, isSandbox, () => false);
}
