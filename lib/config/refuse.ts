import { z } from 'zod';

/** A zod transform's refusal: the issue added to its context, and z.NEVER returned (zod's way to fail a transform). */
export function refuse(ctx: z.core.$RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}
