/** The UTC day of `now` (YYYY-MM-DD): free verifications, usage rows and member caps count per UTC day. */
export const utcDay = (now = Date.now()) => new Date(now).toISOString().slice(0, 10);
