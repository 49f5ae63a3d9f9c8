import { singleCheckRoute } from '@/lib/api/single-check';
import { verifyResult } from '@/lib/checks/shape';
import { preflight } from '@/lib/api/cors';
import { operations } from '@/lib/api/operations';

export const POST = singleCheckRoute(operations.verify, verifyResult);

/** CORS preflight for publishable keys (the form widget): answered for the key's allowed origins only. */
export const OPTIONS = preflight;
