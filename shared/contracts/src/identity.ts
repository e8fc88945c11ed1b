/** Identity messages: the gateway owns accounts and API tokens; others ask it over the bus. */
import { z } from 'zod';

export const CAPABILITIES = ['knowledge:write'] as const;
export const capability = z.enum(CAPABILITIES);
export type Capability = z.infer<typeof capability>;

/** Who made a request: an API token, or the browser UI (which belongs to no key). */
export type Caller = { kind: 'token'; tokenId: string; capabilities: Capability[] } | { kind: 'ui'; accountId: string };

export const signingSecretRequest = z.object({ tokenId: z.string() });
export const signingSecretReply = z.object({ signingSecret: z.string().nullable() });
