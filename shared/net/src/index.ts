/**
 * Outbound addresses a user gives (callbacks, calendar feeds): which ones may be reached
 * (CALLBACK_ALLOW_PRIVATE, CALLBACK_ALLOWED_HOSTS; link-local and metadata never), and http(s)
 * agents that hold every connection to that policy after DNS.
 */
export * from './address-policy.js';
export * from './guarded-agent.js';
export * from './ip-ranges.js';
