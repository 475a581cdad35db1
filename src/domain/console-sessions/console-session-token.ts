/** A console session's token: `cs_` and 32 random bytes, base64url (43 characters). */
export const consoleSessionTokenPrefix = 'cs_';
export const consoleSessionTokenPattern = new RegExp(`^${consoleSessionTokenPrefix}[A-Za-z0-9_-]{43}$`);

/** How long a session lasts from sign-in; it is never extended, so a stolen cookie is worth at most this. */
export const consoleSessionHours = 12;
