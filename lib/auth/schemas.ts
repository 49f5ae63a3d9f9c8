import { z } from 'zod';

// Lengths only bound the work (scrypt over a megabyte is slow); the body limit bounds the rest.
export const signupBody = z.object({ email: z.string().max(320), password: z.string().max(1024) });
export const passwordChangeBody = z.object({ current_password: z.string().max(1024), new_password: z.string().max(1024) });
