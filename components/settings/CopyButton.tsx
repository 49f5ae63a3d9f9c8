'use client';

import { useState } from 'react';
import { Button } from '../ui';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard blocked (plain http): the value stays selectable on screen.
    }
  }
  return (
    <Button variant="secondary" onClick={copy} aria-live="polite">
      {copied ? 'Copied' : label}
    </Button>
  );
}
