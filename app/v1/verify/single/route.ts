import { singleCheckRoute } from '@/lib/api/single-check';
import { singleResult } from '@/lib/checks/shape';
import { preflight } from '@/lib/api/cors';
import { operations } from '@/lib/api/operations';

export const POST = singleCheckRoute(operations.verifySingle, singleResult);

/** CORS preflight for publishable keys (the form widget): answered for the key's allowed origins only. */
export const OPTIONS = preflight;
